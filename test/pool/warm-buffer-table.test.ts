/**
 * The warm buffer and Spot eviction as a table through `planPool` (pure): listed VMs (power,
 * health, protection, their rows' marks), the wanted count, `warm.max`, `maxCount` and the scale
 * set's priority in; the VMs parked, woken and deleted, the capacity raise and the lines out.
 * In the style of plan-table.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { planPool } from '../../src/pool/plan.js';
import { inventoryFromRows } from '../../src/pool/inventory.js';
import type { PoolSnapshot } from '../../src/pool/snapshot.js';
import type { CachedInstance } from '../../src/cache/instance.js';

const NOW = Date.UTC(2026, 11, 2, 1);
const BASE = 'azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines';

/** `up`: running, healthy; `parked`: row Parked, deallocated; `off`: deallocated, its row says Running (evicted on Spot, stopped by someone otherwise). */
type Kind = 'up' | 'parked' | 'waking' | 'off' | 'broken' | 'creating';

interface Vm {
  id: number;
  kind?: Kind;
  /** The VM's power as listed, when it differs from what `kind` implies (a mark whose call did not go out). */
  power?: 'running' | 'deallocated' | 'stopped';
  guard?: boolean;
  /** ARM's provisioning state as listed, when not `Succeeded`. */
  provisioning?: 'Failed';
  /** Minutes before NOW the row was marked; default 10 (older than the listing). */
  markedAgo?: number;
}

const powerOf = (vm: Vm) => {
  if (vm.power) return `PowerState/${vm.power}`;
  return vm.kind === 'parked' || vm.kind === 'off' || vm.kind === 'waking' ? 'PowerState/deallocated' : vm.kind === 'creating' ? 'PowerState/starting' : 'PowerState/running';
};

function instance(vm: Vm): CachedInstance {
  return {
    id: `${BASE}/${vm.id}`,
    name: `vmss_${vm.id}`,
    state: vm.kind === 'creating' ? 'Creating' : 'Running',
    powerState: powerOf(vm),
    errorInfo: vm.kind === 'broken' ? { errorClass: 'Other', errorCode: 'VMExtensionProvisioningFailed', errorMessage: 'exit 1' } : null,
    provisioningState: vm.provisioning ?? 'Succeeded',
    timeCreated: NOW - (100 - vm.id) * 60_000,
    ...(vm.guard ? { protectFromScaleIn: true } : {}),
  };
}

const statusOf = (vm: Vm) => (vm.kind === 'parked' ? 'Parked' : vm.kind === 'waking' ? 'Waking' : vm.kind === 'creating' ? 'Provisioning' : 'Running');

function snapshot(vms: Vm[], wanted: number | undefined, spot: boolean): PoolSnapshot {
  const rows = vms.map((vm) => ({
    partitionKey: 'p',
    rowKey: `${BASE}/${vm.id}`,
    etag: `e${vm.id}`,
    props: { providerStatus: statusOf(vm), createdAt: 0, updatedAt: NOW - (vm.markedAgo ?? 10) * 60_000, name: `vmss_${vm.id}` },
  }));
  const wantedRow = wanted === undefined ? [] : [{ partitionKey: 'p', rowKey: '~wanted', etag: 'w', props: { wanted, by: 't', at: 0 } }];
  const instances = vms.map(instance);
  return {
    scaleSet: { id: 'x', name: 'vmss', location: 'l', orchestrationMode: 'Uniform', capacity: instances.length, etag: '"1"', provisioningState: 'Succeeded', ...(spot ? { priority: 'Spot' } : { priority: 'Regular' }) },
    instances,
    previous: instances,
    inventory: inventoryFromRows([...rows, ...wantedRow]),
    // The listing started a minute ago: marks older than that were seen by it.
    listedAt: NOW - 60_000,
  };
}

interface Row {
  name: string;
  vms: Vm[];
  wanted: number | undefined;
  warmMax: number;
  maxCount?: number;
  spot?: boolean;
  park?: number[];
  wake?: number[];
  remove?: number[];
  /** New VMs the capacity raise asks for. */
  create?: number;
  line?: RegExp;
  /** The Pool target sizing the pool (with `wanted` undefined: it has not written a count yet). */
  sizedBy?: string;
}

const ids = (list: { id: string }[]) => list.map((d) => Number(d.id.split('/').pop()));
const up = (...n: number[]): Vm[] => n.map((id) => ({ id }));

const table: Row[] = [
  { name: 'warm.max 0: a scale-in deletes, as before', vms: up(0, 1, 2), wanted: 1, warmMax: 0, remove: [2, 1] },
  { name: 'warm.max 2, 6 → 2: the first 2 victims parked, the other 2 deleted', vms: up(0, 1, 2, 3, 4, 5), wanted: 2, warmMax: 2, park: [5, 4], remove: [3, 2], line: /^6 VMs above the wanted 2: parking 2 in the warm buffer \(warm\.max 2\), deleting 2 by instance id$/ },
  { name: 'the buffer full already: victims are deleted', vms: [...up(0, 1, 2), { id: 3, kind: 'parked' }, { id: 4, kind: 'parked' }], wanted: 1, warmMax: 2, remove: [2, 1] },
  { name: 'parked VMs are not scale-in candidates (they are not ready)', vms: [...up(0, 1), { id: 2, kind: 'parked' }], wanted: 2, warmMax: 2 },
  { name: 'broken and not yet running victims are deleted, never parked', vms: [...up(0, 1), { id: 2, kind: 'broken' }, { id: 3, kind: 'creating' }], wanted: 1, warmMax: 5, park: [1], remove: [2, 3] },
  { name: 'protected VMs are never parked (nor chosen)', vms: [{ id: 0, guard: true }, { id: 1, guard: true }, { id: 2 }], wanted: 0, warmMax: 5, park: [2], line: /^2 protected VMs kept above the wanted 0$/ },
  { name: '2 parked, 2 → 5: both started before any creation, 1 created', vms: [...up(0, 1), { id: 2, kind: 'parked' }, { id: 3, kind: 'parked' }], wanted: 5, warmMax: 2, maxCount: 10, wake: [2, 3], create: 1, line: /^starting 2 of 2 parked VM\(s\) before creating any$/ },
  { name: 'fewer wanted than parked: only as many started, the rest stay parked, nothing created', vms: [...up(0), { id: 1, kind: 'parked' }, { id: 2, kind: 'parked' }], wanted: 2, warmMax: 2, maxCount: 10, wake: [1] },
  { name: 'no target: parked VMs are started before filling to maxCount', vms: [...up(0), { id: 1, kind: 'parked' }], wanted: undefined, warmMax: 1, maxCount: 3, wake: [1], create: 1 },
  { name: 'parked beyond warm.max (lowered) are deleted, oldest kept by policy newest', vms: [...up(0), { id: 1, kind: 'parked' }, { id: 2, kind: 'parked' }, { id: 3, kind: 'parked' }], wanted: 1, warmMax: 1, remove: [3, 2], line: /^2 parked VM\(s\) beyond the warm buffer/ },
  { name: 'parked beyond maxCount with the active VMs are deleted', vms: [...up(0, 1, 2), { id: 3, kind: 'parked' }, { id: 4, kind: 'parked' }], wanted: 3, warmMax: 5, maxCount: 4, remove: [4] },
  { name: 'a Parked mark whose deallocate did not go out (listed running since): deallocated again', vms: [...up(0), { id: 1, kind: 'parked', power: 'running' }], wanted: 1, warmMax: 2, park: [1], line: /still listed running/ },
  { name: 'a Parked mark the listing predates waits', vms: [...up(0), { id: 1, kind: 'parked', power: 'running', markedAgo: 0 }], wanted: 1, warmMax: 2 },
  { name: 'a Waking mark whose start did not go out (listed deallocated since): started again, nothing created for it', vms: [...up(0), { id: 1, kind: 'waking' }], wanted: 2, warmMax: 2, maxCount: 10, wake: [1], line: /still listed deallocated/ },
  { name: 'Spot: a deallocated VM Drover did not park was evicted: deleted, no backoff', vms: [...up(0, 1), { id: 2, kind: 'off' }], wanted: 3, warmMax: 0, maxCount: 10, spot: true, remove: [2], line: /^1 Spot VM\(s\) evicted by Azure/ },
  { name: 'Spot: an evicted VM is replaced from the warm buffer first', vms: [...up(0), { id: 1, kind: 'off' }, { id: 2, kind: 'parked' }], wanted: 2, warmMax: 2, maxCount: 10, spot: true, remove: [1], wake: [2] },
  { name: 'Spot: a parked VM is not evicted', vms: [...up(0), { id: 1, kind: 'parked' }], wanted: 1, warmMax: 1, spot: true },
  { name: 'Spot: a protected evicted VM is left alone, and its place filled by a creation', vms: [...up(0), { id: 1, kind: 'off', guard: true }], wanted: 2, warmMax: 0, spot: true, create: 1 },
  { name: 'sized to 3, 2 parked: a VM deallocated by someone else is replaced from the buffer and taken into it', vms: [...up(0, 1), { id: 2, kind: 'off' }, { id: 3, kind: 'parked' }, { id: 4, kind: 'parked' }], wanted: 3, warmMax: 2, wake: [3], park: [2], line: /^1 VM\(s\) stopped or deallocated by someone else are not ready and hold no place in the wanted count: 1 taken into the warm buffer$/ },
  { name: 'raised to 5 with one VM stopped by someone else: the 2 Drover parked are started first, the stopped one stays in the buffer', vms: [...up(0, 1, 2), { id: 3, kind: 'off' }, { id: 4, kind: 'parked' }, { id: 5, kind: 'parked' }], wanted: 5, warmMax: 2, maxCount: 10, wake: [4, 5], park: [3], line: /^starting 2 of 3 parked VM\(s\) before creating any$/ },
  { name: 'raised to 5 with only a VM stopped by someone else in the buffer: it is started, and 1 created', vms: [...up(0, 1, 2), { id: 3, kind: 'off' }], wanted: 5, warmMax: 2, maxCount: 10, wake: [3], create: 1 },
  { name: 'the buffer overflowing with one stopped by someone else: that one is deleted, not one Drover parked', vms: [...up(0, 1), { id: 2, kind: 'off' }, { id: 3, kind: 'parked' }, { id: 4, kind: 'parked' }], wanted: 3, warmMax: 1, wake: [3], remove: [2] },
  { name: 'a scale-in 8 → 2 with one VM stopped by someone else: the 2 newest running victims parked, the stopped one deleted with the rest', vms: [...up(0), { id: 1, kind: 'off' }, ...up(2, 3, 4, 5, 6, 7)], wanted: 2, warmMax: 2, maxCount: 10, park: [7, 6], remove: [5, 4, 3, 1] },
  { name: 'no VM parked: a VM deallocated by someone else is started again, nothing created', vms: [...up(0), { id: 1, kind: 'off' }], wanted: 2, warmMax: 0, maxCount: 10, wake: [1] },
  { name: 'a VM someone only stopped (still allocated), beyond the wanted count: deallocated into the buffer, nothing created', vms: [...up(0, 1, 2), { id: 3, kind: 'off', power: 'stopped' }], wanted: 3, warmMax: 1, maxCount: 10, park: [3] },
  { name: 'a VM stopped by someone else beyond the buffer and not needed: deleted by instance id', vms: [...up(0, 1), { id: 2, kind: 'off' }], wanted: 2, warmMax: 0, maxCount: 10, remove: [2], line: /beyond the warm buffer/ },
  { name: 'not Spot: a protected VM stopped by someone else is left alone, and its place filled by a creation', vms: [...up(0), { id: 1, kind: 'off', guard: true }], wanted: 2, warmMax: 2, maxCount: 10, create: 1, line: /1 protected left as they are/ },
  { name: 'a VM whose provisioning failed, listed stopped, without fast delete: kept as it is for an operator, holding its place', vms: [...up(0), { id: 1, kind: 'off', power: 'stopped', provisioning: 'Failed' }], wanted: 2, warmMax: 2, maxCount: 10 },
  { name: 'sized by a target that has not written a count: a VM stopped by someone else is left as it is', vms: [...up(0), { id: 1, kind: 'off' }], wanted: undefined, sizedBy: 't', warmMax: 0, maxCount: 10 },
];

describe('the warm buffer, through planPool', () => {
  it.each(table)('$name', (row) => {
    const plan = planPool(snapshot(row.vms, row.wanted, row.spot ?? false), { name: 'p', maxCount: row.maxCount ?? 0, chunkSize: 20, instanceLimit: 1000, fastDelete: false, scaleInPolicy: 'newest', warmMax: row.warmMax, ...(row.sizedBy ? { sizedBy: row.sizedBy } : {}) }, NOW);
    expect({ park: ids(plan.park), wake: ids(plan.wake), remove: ids(plan.scaleIn), create: plan.raise ? plan.raise.to - plan.raise.from : 0 }).toEqual({
      park: row.park ?? [],
      wake: row.wake ?? [],
      remove: row.remove ?? [],
      create: row.create ?? 0,
    });
    if (row.line) expect(plan.lines.some((l) => row.line!.test(l))).toBe(true);
    // No fast delete here, so no backoff ever: an eviction is no failure.
    expect(plan.backoff).toBeUndefined();
    // A row the executor marks is never also a status update.
    const marked = new Set([...plan.park, ...plan.wake, ...plan.scaleIn].map((d) => d.id));
    expect(plan.statusUpdates.filter((u) => marked.has(u.row.rowKey))).toEqual([]);
  });

  it('parked rows stay Parked (no status update to Stopped); a Waking row listed running becomes Running', () => {
    const plan = planPool(snapshot([...up(0), { id: 1, kind: 'parked' }, { id: 2, kind: 'waking', power: 'running' }], 3, false), { name: 'p', maxCount: 0, chunkSize: 20, instanceLimit: 1000, fastDelete: false, warmMax: 1 }, NOW);
    expect(plan.statusUpdates.map((u) => [Number(u.row.rowKey.split('/').pop()), u.status])).toEqual([[2, 'Running']]);
  });
});
