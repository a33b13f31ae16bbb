/**
 * A model of one scale set in ARM, its instance cache and the pool's inventory partition, for
 * driving planPool and the executor without a network: the smoke test and the property test.
 * Faults (a crash, a 412, a throttle) are injected before any write through `fault`.
 */
import { ArmPreconditionFailedError } from '../../../src/azure/errors.js';
import { RateLimitedError } from '../../../src/errors/rate-limited.js';
import type { CachedInstance } from '../../../src/cache/instance.js';
import type { Row } from '../../../src/state/entity-table.js';
import { executePlan, type PoolOutcome, type PoolPassDeps } from '../../../src/pool/execute.js';
import { inventoryFromRows } from '../../../src/pool/inventory.js';
import { planPool, type PoolPlan, type PoolSettings } from '../../../src/pool/plan.js';
import type { RowResult, RowWrite } from '../../../src/pool/row-writer.js';
import type { PoolSnapshot } from '../../../src/pool/snapshot.js';

export const vmId = (n: number) => `azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/${n}`;

export type WriteKind = 'read' | 'row' | 'setCapacity' | 'deleteInstances' | 'lease';

export class CrashError extends Error {
  override name = 'CrashError';
}

export interface ModelVm {
  id: string;
  n: number;
  state: 'Running' | 'Deleting';
  broken: boolean;
}

export class PoolModel {
  capacity = 0;
  etag = 1;
  vms: ModelVm[] = [];
  private next = 0;
  /** VMs the list leaves out although the capacity counts them (an incomplete view). */
  hidden = new Set<string>();
  /** The instance cache as the last pass left it. */
  cache: CachedInstance[] = [];
  rows = new Map<string, { props: Record<string, string | number | undefined>; etag: number }>();
  private rowEtag = 0;
  /** Called before every write; throw to fail it. */
  fault: (kind: WriteKind) => void = () => undefined;
  /** Every capacity Drover wrote, for the "never above maxCount" check. */
  readonly capacityWrites: number[] = [];
  /** Writes other than the safety record by a pass whose snapshot held a disagreement (see `disagrees`). */
  readonly writesWhileIncomplete: string[] = [];
  private snapshotDisagreed = false;
  now = 1_000_000;

  /** New VMs: `broken` for the next `brokenNext` creations. */
  brokenNext = 0;

  addRunning(count: number): void {
    for (let i = 0; i < count; i++) this.vms.push(this.newVm(false));
    this.capacity += count;
    this.etag++;
  }

  private newVm(broken: boolean): ModelVm {
    const n = this.next++;
    return { id: vmId(n), n, state: 'Running', broken };
  }

  /** Azure deletes a VM (eviction, repair, a scale-in): the capacity goes down with it. */
  azureDelete(id: string): void {
    const before = this.vms.length;
    this.vms = this.vms.filter((v) => v.id !== id);
    if (this.vms.length < before) {
      this.capacity--;
      this.etag++;
    }
    this.hidden.delete(id);
  }

  /** Deletes ARM finished. */
  settleDeletes(): void {
    this.vms = this.vms.filter((v) => v.state !== 'Deleting');
  }

  /**
   * The views disagree: the list leaves out a VM the capacity counts (an incomplete view), and
   * the inventory holds a machine, not failed, that the list does not show and that was not
   * seen Deleting: nothing proves it gone, so the switch must hold.
   */
  disagrees(previous: readonly CachedInstance[] = this.cache): boolean {
    const incomplete = this.vms.some((v) => this.hidden.has(v.id));
    if (!incomplete) return false;
    const listed = new Set(this.listed().map((i) => i.id));
    const seenDeleting = new Set(previous.filter((i) => i.state === 'Deleting').map((i) => i.id));
    return [...this.rows].some(
      ([id, row]) => !id.startsWith('~') && !listed.has(id) && !seenDeleting.has(id) && row.props.providerStatus !== 'ProvisioningFailedPermanent' && row.props.providerStatus !== 'Missing',
    );
  }

  private get incomplete(): boolean {
    return this.snapshotDisagreed;
  }

  /** Whether the views disagreed at the last snapshot: the switch must hold after that pass. */
  get switchExpected(): boolean {
    return this.snapshotDisagreed;
  }

  listed(): CachedInstance[] {
    return this.vms
      .filter((v) => !this.hidden.has(v.id))
      .map((v) => ({
        id: v.id,
        name: `vm${v.n}`,
        powerState: 'PowerState/running',
        state: v.state,
        errorInfo: v.broken && v.state !== 'Deleting' ? { errorClass: 'OutOfResources' as const, errorCode: 'AllocationFailed', errorMessage: 'no capacity' } : null,
      }));
  }

  managedIds(): string[] {
    return [...this.rows.keys()].filter((k) => !k.startsWith('~'));
  }

  snapshot(): PoolSnapshot {
    this.fault('read');
    const previous = this.cache;
    this.snapshotDisagreed = this.disagrees(previous);
    this.cache = this.listed();
    const all: Row<Record<string, string | number | undefined>>[] = [...this.rows].map(([rowKey, r]) => ({ partitionKey: 'pool', rowKey, etag: String(r.etag), props: r.props }));
    return {
      scaleSet: { id: 'ss', name: 'ss', location: undefined, orchestrationMode: 'Uniform', capacity: this.capacity, etag: String(this.etag), provisioningState: 'Succeeded' },
      instances: this.cache,
      previous,
      inventory: inventoryFromRows(all as Row<never>[]),
    };
  }

  private writeRow(w: RowWrite): RowResult {
    this.fault('row');
    if (this.incomplete && w.key !== '~safety') this.writesWhileIncomplete.push(`${w.op} ${w.key}`);
    const current = this.rows.get(w.key);
    switch (w.op) {
      case 'insert':
        if (current) return { ok: false, reason: 'already in the inventory' };
        this.rows.set(w.key, { props: { ...w.props } as never, etag: ++this.rowEtag });
        return { ok: true };
      case 'replace':
        if (!current || String(current.etag) !== w.etag) return { ok: false, reason: 'changed since it was read (412)' };
        this.rows.set(w.key, { props: { ...w.props } as never, etag: ++this.rowEtag });
        return { ok: true };
      case 'delete':
        if (!current) return { ok: false, reason: 'gone' };
        this.rows.delete(w.key);
        return { ok: true };
    }
  }

  deps(draw: (wanted: number) => Promise<number> = (n) => Promise.resolve(n)): PoolPassDeps {
    return {
      deletions: { draw: (n) => Promise.resolve(n) },
      chunkSize: 20,
      rows: {
        // A crash part-way through a batch leaves the rows before it written, as separate transactions would.
        write: async (writes) => writes.map((w) => this.writeRow(w)),
      },
      arm: {
        setCapacity: async (capacity, etag) => {
          this.fault('setCapacity');
          if (this.incomplete) this.writesWhileIncomplete.push(`setCapacity ${capacity}`);
          if (etag !== String(this.etag)) throw new ArmPreconditionFailedError('setCapacity', 'ss', etag);
          this.capacityWrites.push(capacity);
          while (this.vms.filter((v) => v.state !== 'Deleting').length < capacity) {
            this.vms.push(this.newVm(this.brokenNext > 0));
            if (this.brokenNext > 0) this.brokenNext--;
          }
          this.capacity = capacity;
          this.etag++;
          return { done: true };
        },
        deleteInstances: async (doomed) => {
          this.fault('deleteInstances');
          if (this.incomplete) this.writesWhileIncomplete.push(`delete ${doomed.map((d) => d.id).join(',')}`);
          for (const d of doomed) {
            const vm = this.vms.find((v) => v.id === d.id && v.state !== 'Deleting');
            if (vm) {
              vm.state = 'Deleting';
              this.capacity--;
            }
          }
          this.etag++;
          return { done: true };
        },
        // The model keeps no warm buffer (warm.max 0, no Spot VMs): a power call is a plan bug.
        setPower: (power) => Promise.reject(new Error(`the model has no warm buffer, yet the plan asked to ${power}`)),
      },
      cache: {
        relist: async () => (this.cache = this.listed()),
        relistAfterPower: async () => {
          this.cache = this.listed();
        },
        markDeleting: async (doomed) => {
          const ids = new Set(doomed.map((d) => d.id));
          this.cache = this.cache.map((i) => (ids.has(i.id) ? { ...i, state: 'Deleting' } : i));
        },
      },
      lease: { check: async () => this.fault('lease') },
      creations: { draw },
      requeue: () => Promise.resolve(),
      now: () => this.now,
    };
  }

  /** One pass: snapshot, plan, execute. */
  async pass(settings: PoolSettings, draw?: (wanted: number) => Promise<number>): Promise<{ plan: PoolPlan; outcome: PoolOutcome }> {
    const plan = planPool(this.snapshot(), settings, this.now);
    const outcome = await executePlan(plan, this.deps(draw));
    return { plan, outcome };
  }
}

export const throttled = () => new RateLimitedError('arm', 'model', 1000);
