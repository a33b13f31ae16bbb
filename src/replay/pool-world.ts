/**
 * The scale set, instance cache and inventory of a pool in a replay, in memory, and the ports
 * the pool's executor (`executePlan`, src/pool/execute.ts) writes through. VMs a capacity raise
 * creates run `creationMs` later, and parked VMs a start wakes run `startMs` later; a
 * deallocated VM stops at once, and a deleted one leaves the scale set (and its capacity) at once.
 * The cache holds what the last listing saw, as the pool's passes keep it: a listing when the
 * cache's ttl ran out (a minute after one that found a VM being created, as refresh-policy.ts
 * brings it forward), and one after each capacity raise.
 */
import type { PowerChange, ScaleSetInfo } from '../azure/scale-set-api.js';
import type { CachedInstance } from '../cache/instance.js';
import { isSettling, lastRefreshAfterSuccess } from '../cache/refresh-policy.js';
import type { PoolConfig } from '../config/schema.js';
import { inventoryFromRows, type InventorySnapshot } from '../pool/inventory.js';
import type { Deletion } from '../pool/plan.js';
import type { RowResult, RowWrite, RowWriter } from '../pool/row-writer.js';
import type { PoolSnapshot } from '../pool/snapshot.js';
import { WANTED_KEY, type WantedProps } from '../pool/wanted.js';
import type { Props, Row } from '../state/entity-table.js';

/** A subscription id no real one has: replayed VMs are named as a scale set names them. */
const SUBSCRIPTION = '00000000-0000-0000-0000-000000000000';

interface ReplayVm {
  id: string;
  name: string;
  createdAt: number;
  /** When it finished provisioning (or starting) and runs. */
  runningAt: number;
  /** Parked: deallocated. */
  deallocated: boolean;
  /** It was started after being deallocated (it is starting until `runningAt`, not creating). */
  started: boolean;
}

export class PoolWorld {
  private readonly vms = new Map<string, ReplayVm>();
  private nextInstance = 0;
  private etagCount = 0;
  private readonly rows = new Map<string, Row>();
  capacity = 0;
  scaleSetEtag = 'W/"0"';
  /** The instances as the cache has them, and what it held before its last listing. */
  cache: CachedInstance[] = [];
  previous: CachedInstance[] = [];
  listedAt: number | undefined;
  /** When the cache listed expires: a ttl after the listing, sooner while a VM is being created. */
  private expiresAt: number | undefined;

  constructor(
    private readonly pool: PoolConfig,
    private readonly delays: { creationMs: number; startMs: number },
  ) {}

  /**
   * VMs running at the start, in the inventory and the cache, and the wanted count at them: a
   * pool Drover already runs, sized by its target. (A pool without a `~wanted` row fills to
   * maxCount, which would tell more of the start than of the trace.)
   */
  seed(count: number, now: number): void {
    this.create(count, now, now);
    this.capacity = count;
    for (const vm of this.vms.values()) this.put(vm.id, { providerStatus: 'Running', name: vm.name, createdAt: now, updatedAt: now });
    this.setWanted(count, now);
    this.list(now);
  }

  /** When the next VM on its way starts running, after `t`. */
  nextRunningAfter(t: number): number | undefined {
    let next: number | undefined;
    for (const vm of this.vms.values()) if (!vm.deallocated && vm.runningAt > t && (next === undefined || vm.runningAt < next)) next = vm.runningAt;
    return next;
  }

  /** VMs in the scale set at `t`: running, still provisioning, starting, and parked (deallocated). */
  countAt(t: number): { running: number; creating: number; starting: number; parked: number } {
    const counts = { running: 0, creating: 0, starting: 0, parked: 0 };
    for (const vm of this.vms.values()) {
      if (vm.deallocated) counts.parked++;
      else if (vm.runningAt <= t) counts.running++;
      else if (vm.started) counts.starting++;
      else counts.creating++;
    }
    return counts;
  }

  isFresh(now: number): boolean {
    return this.expiresAt !== undefined && now < this.expiresAt;
  }

  list(now: number): CachedInstance[] {
    this.previous = this.cache;
    this.cache = [...this.vms.values()].map((vm) => instanceOf(vm, now));
    this.listedAt = now;
    // The production cache's own rule (without its jitter and ARM's slowdowns, which a replay has none of).
    const periodMs = this.pool.instanceCache.ttl;
    this.expiresAt = lastRefreshAfterSuccess({ lastRefresh: now, periodMs, jitterSec: 0 }, now, () => 0, undefined, this.cache.some(isSettling)) + periodMs;
    return this.cache;
  }

  get wanted(): number | undefined {
    return this.rows.get(WANTED_KEY)?.props.wanted as number | undefined;
  }

  /** The target's write of the wanted count; false when it already was so. */
  setWanted(wanted: number, now: number): boolean {
    if (this.wanted === wanted) return false;
    this.put(WANTED_KEY, { wanted, by: 'replay', at: now } satisfies WantedProps);
    return true;
  }

  snapshot(): PoolSnapshot {
    const scaleSet: ScaleSetInfo = { id: this.scaleSetId(), name: this.pool.scaleSet.name, location: undefined, orchestrationMode: 'Uniform', capacity: this.capacity, etag: this.scaleSetEtag, provisioningState: 'Succeeded' };
    const inventory: InventorySnapshot = inventoryFromRows([...this.rows.values()]);
    return { scaleSet, instances: this.cache, previous: this.previous, ...(this.listedAt === undefined ? {} : { listedAt: this.listedAt }), inventory };
  }

  /** Managed rows (the pool's bookkeeping rows left out). */
  get inventorySize(): number {
    return [...this.rows.keys()].filter((k) => !k.startsWith('~')).length;
  }

  rowWriter(): RowWriter {
    return { write: (writes) => Promise.resolve(writes.map((w) => this.apply(w))) };
  }

  setCapacity(capacity: number, etag: string, at: number, runsFrom: number): boolean {
    if (etag !== this.scaleSetEtag) return false;
    if (capacity > this.capacity) this.create(capacity - this.capacity, at, runsFrom + this.delays.creationMs);
    this.capacity = capacity;
    this.scaleSetEtag = `W/"${++this.etagCount}"`;
    return true;
  }

  /** ARM takes the VMs out of the scale set and its capacity as it accepts the delete. */
  delete(deletions: readonly Deletion[]): void {
    for (const d of deletions) if (this.vms.delete(d.id)) this.capacity--;
    this.scaleSetEtag = `W/"${++this.etagCount}"`;
  }

  /** A start runs the VMs `startMs` after `from`; a deallocate stops them at once. */
  setPower(power: PowerChange, vms: readonly Deletion[], from: number): void {
    for (const d of vms) {
      const vm = this.vms.get(d.id);
      if (!vm) continue;
      if (power === 'start' && vm.deallocated) Object.assign(vm, { deallocated: false, started: true, runningAt: from + this.delays.startMs });
      else if (power === 'deallocate') vm.deallocated = true;
    }
  }

  markDeleting(deletions: readonly Deletion[]): void {
    const ids = new Set(deletions.map((d) => d.id));
    this.cache = this.cache.map((i) => (ids.has(i.id) ? { ...i, state: 'Deleting' as const } : i));
  }

  private create(count: number, at: number, runningAt: number): void {
    for (let k = 0; k < count; k++) {
      const instanceId = String(this.nextInstance++);
      const id = `azure://${this.scaleSetId()}/virtualMachines/${instanceId}`;
      this.vms.set(id, { id, name: `${this.pool.scaleSet.name}_${instanceId}`, createdAt: at, runningAt, deallocated: false, started: false });
    }
  }

  private scaleSetId(): string {
    const { resourceGroup, name } = this.pool.scaleSet;
    return `/subscriptions/${SUBSCRIPTION}/resourceGroups/${resourceGroup.toLowerCase()}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`;
  }

  private put(key: string, props: Props): void {
    this.rows.set(key, { partitionKey: this.pool.name, rowKey: key, etag: String(++this.etagCount), props });
  }

  private apply(w: RowWrite): RowResult {
    const row = this.rows.get(w.key);
    if (w.op === 'insert') {
      if (row) return { ok: false, reason: 'already in the inventory' };
      this.put(w.key, w.props);
    } else if (!row || row.etag !== w.etag) {
      return { ok: false, reason: w.op === 'replace' ? 'changed since it was read (412)' : 'changed or gone since it was read' };
    } else if (w.op === 'replace') {
      this.put(w.key, w.props);
    } else {
      this.rows.delete(w.key);
    }
    return { ok: true };
  }
}

/** As ARM lists it: provisioning (Creating), starting, running or deallocated. */
function instanceOf(vm: ReplayVm, now: number): CachedInstance {
  const running = !vm.deallocated && vm.runningAt <= now;
  const provisioned = running || vm.deallocated || vm.started;
  const powerState = vm.deallocated ? 'PowerState/deallocated' : running ? 'PowerState/running' : 'PowerState/starting';
  return { id: vm.id, name: vm.name, state: provisioned ? 'Running' : 'Creating', errorInfo: null, powerState, provisioningState: provisioned ? 'Succeeded' : 'Creating', timeCreated: vm.createdAt };
}
