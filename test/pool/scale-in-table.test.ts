/**
 * The scale-in's choice of victims, as a table through `planPool` (pure): a snapshot of listed
 * VMs (zone, age, protection, health), the inventory and the wanted count in; the VMs to delete
 * and the lines out. In the style of plan-table.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { changesNothing, planPool } from '../../src/pool/plan.js';
import { inventoryFromRows } from '../../src/pool/inventory.js';
import type { PoolSnapshot } from '../../src/pool/snapshot.js';
import type { CachedInstance } from '../../src/cache/instance.js';

const NOW = Date.UTC(2026, 11, 1, 12);
const BASE = 'azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines';

interface Vm {
  id: number;
  zone?: string;
  /** Minutes before NOW. */
  age?: number;
  broken?: boolean;
  creating?: boolean;
  deleting?: boolean;
  guard?: 'scaleIn' | 'actions';
  /** The inventory row says Deleting (a scale-in marked it), and when (minutes before NOW). */
  marked?: number;
  /** No inventory row. */
  unadopted?: boolean;
}

function instance(vm: Vm): CachedInstance {
  return {
    id: `${BASE}/${vm.id}`,
    name: `vmss_${vm.id}`,
    state: vm.deleting ? 'Deleting' : vm.creating ? 'Creating' : 'Running',
    powerState: vm.creating ? 'PowerState/starting' : 'PowerState/running',
    errorInfo: vm.broken ? { errorClass: 'Other', errorCode: 'VMExtensionProvisioningFailed', errorMessage: 'exit 1' } : null,
    ...(vm.zone ? { zone: vm.zone } : {}),
    timeCreated: NOW - (vm.age ?? vm.id) * 60_000,
    ...(vm.guard === 'scaleIn' ? { protectFromScaleIn: true } : vm.guard === 'actions' ? { protectFromScaleSetActions: true } : {}),
  };
}

function snapshot(vms: Vm[], wanted: number | undefined, listedAt = NOW - 1_000): PoolSnapshot {
  const rows = vms
    .filter((vm) => !vm.unadopted)
    .map((vm) => ({
      partitionKey: 'p',
      rowKey: `${BASE}/${vm.id}`,
      etag: `e${vm.id}`,
      props: { providerStatus: vm.marked !== undefined ? 'Deleting' : vm.broken ? 'Running' : vm.creating ? 'Provisioning' : 'Running', createdAt: 0, updatedAt: vm.marked !== undefined ? NOW - vm.marked * 60_000 : 0, name: `vmss_${vm.id}` },
    }));
  const wantedRow = wanted === undefined ? [] : [{ partitionKey: 'p', rowKey: '~wanted', etag: 'w', props: { wanted, by: 't', at: 0 } }];
  const instances = vms.map(instance);
  return {
    scaleSet: { id: 'x', name: 'vmss', location: 'l', orchestrationMode: 'Uniform', capacity: instances.filter((i) => i.state !== 'Deleting').length, etag: '"1"', provisioningState: 'Succeeded' },
    instances,
    previous: instances,
    inventory: inventoryFromRows([...rows, ...wantedRow]),
    listedAt,
  };
}

const settings = (policy: 'newest' | 'oldest' = 'newest', minAge = 0) => ({ name: 'p', maxCount: 0, chunkSize: 20, instanceLimit: 1000, fastDelete: false, scaleInPolicy: policy, scaleInMinAgeMs: minAge * 60_000 });

/** `minAge` in minutes (0: off, the default). */
const victims = (s: PoolSnapshot, policy: 'newest' | 'oldest' = 'newest', minAge = 0) => {
  const plan = planPool(s, settings(policy, minAge), NOW);
  return { ids: plan.scaleIn.map((d) => Number(d.id.split('/').pop())), lines: plan.lines, raise: plan.raise, held: plan.heldByMinAge };
};

const table: { name: string; vms: Vm[]; wanted: number | undefined; policy?: 'newest' | 'oldest'; minAge?: number; want: number[]; line?: RegExp; held?: number; listedAt?: number }[] = [
  { name: 'no wanted count: nothing is scaled in', vms: [{ id: 0 }, { id: 1 }], wanted: undefined, want: [] },
  { name: 'at the wanted count: nothing', vms: [{ id: 0 }, { id: 1 }], wanted: 2, want: [] },
  { name: 'newest first by timeCreated', vms: [{ id: 0, age: 30 }, { id: 1, age: 10 }, { id: 2, age: 20 }], wanted: 1, want: [1, 2] },
  { name: 'oldest first with policy oldest', vms: [{ id: 0, age: 30 }, { id: 1, age: 10 }, { id: 2, age: 20 }], wanted: 1, policy: 'oldest', want: [0, 2] },
  { name: 'ties by instance id (newest: the higher id)', vms: [{ id: 9, age: 5 }, { id: 10, age: 5 }, { id: 2, age: 5 }], wanted: 2, want: [10] },
  { name: 'broken first, then not yet running, then running', vms: [{ id: 0, age: 1 }, { id: 1, creating: true, age: 50 }, { id: 2, broken: true, age: 90 }], wanted: 1, want: [2, 1] },
  { name: 'a broken VM without a row counts and goes first', vms: [{ id: 0 }, { id: 1 }, { id: 2, broken: true, unadopted: true }], wanted: 2, want: [2] },
  { name: 'zones kept balanced: the fuller zone gives first', vms: [{ id: 0, zone: '1', age: 1 }, { id: 1, zone: '1', age: 2 }, { id: 2, zone: '1', age: 3 }, { id: 3, zone: '2', age: 0 }], wanted: 2, want: [0, 1] },
  { name: 'protected VMs are never chosen, and the line says why the pool stays above', vms: [{ id: 0, guard: 'scaleIn' }, { id: 1 }, { id: 2, guard: 'actions' }, { id: 3, guard: 'scaleIn' }, { id: 4, guard: 'scaleIn' }], wanted: 1, want: [1], line: /^4 protected VMs kept above the wanted 1$/ },
  { name: 'VMs on their way out are not counted nor chosen', vms: [{ id: 0, age: 9 }, { id: 1, deleting: true }, { id: 2 }], wanted: 1, want: [2] },
  { name: 'a marked row whose VM a later listing shows alive is deleted again', vms: [{ id: 0 }, { id: 1, marked: 5 }], wanted: 1, want: [1], line: /still listed alive/ },
  { name: 'a marked row whose listing predates the mark waits', vms: [{ id: 0 }, { id: 1, marked: 0 }], wanted: 1, listedAt: NOW - 60_000, want: [] },
  { name: 'a marked row whose VM ARM lists Deleting is not deleted again', vms: [{ id: 0 }, { id: 1, marked: 5, deleting: true }], wanted: 1, want: [] },
  { name: 'minAge: a running VM younger than it is passed over for the next newest', vms: [{ id: 0, age: 30 }, { id: 1, age: 2 }, { id: 2, age: 20 }], wanted: 2, minAge: 10, want: [2], held: 0 },
  { name: 'minAge: a VM exactly minAge old may go', vms: [{ id: 0, age: 30 }, { id: 1, age: 10 }], wanted: 1, minAge: 10, want: [1], held: 0 },
  { name: 'minAge: policy oldest still skips the young', vms: [{ id: 0, age: 5 }, { id: 1, age: 20 }, { id: 2, age: 30 }], wanted: 1, policy: 'oldest', minAge: 10, want: [2, 1], held: 0 },
  { name: 'minAge holding every candidate: none is chosen instead, and the line says so (boundBy: MinAge)', vms: [{ id: 0, age: 2 }, { id: 1, age: 3 }, { id: 2, age: 4 }], wanted: 1, minAge: 10, want: [], held: 2, line: /^2 running VM\(s\) younger than scaleIn\.minAge 10m held back above the wanted 1: none of them is chosen instead \(boundBy: MinAge\)$/ },
  { name: 'minAge never holds a broken VM: it goes before a healthy one', vms: [{ id: 0, age: 30 }, { id: 1, age: 1, broken: true }, { id: 2, age: 2 }], wanted: 2, minAge: 10, want: [1], held: 0 },
  { name: 'minAge holds only running VMs: one not yet running still goes', vms: [{ id: 0, age: 30 }, { id: 1, age: 1, creating: true }], wanted: 1, minAge: 10, want: [1], held: 0 },
  { name: 'minAge and protection: protected VMs stay protected, each reason counted apart', vms: [{ id: 0, guard: 'scaleIn', age: 50 }, { id: 4, guard: 'actions', age: 60 }, { id: 1, age: 1 }, { id: 2, age: 40 }], wanted: 1, minAge: 10, want: [2], held: 1, line: /^2 protected VMs kept above the wanted 1$/ },
];

describe('scale-in victims (snapshot, wanted, now → victims and lines)', () => {
  it.each(table)('$name', ({ vms, wanted, policy, minAge, want, line, held, listedAt }) => {
    const out = victims(snapshot(vms, wanted, listedAt), policy, minAge);
    expect(out.ids).toEqual(want);
    if (held !== undefined) expect(out.held).toBe(held);
    if (line) expect(out.lines.some((l) => line.test(l))).toBe(true);
    // A scale-in never raises capacity.
    if (want.length > 0) expect(out.raise).toBeUndefined();
  });
});

describe('scaleIn.minAge holding every candidate', () => {
  const held = planPool(snapshot([{ id: 0, age: 2 }, { id: 1, age: 3 }, { id: 2, age: 4 }], 1), settings('newest', 10), NOW);

  it('writes nothing for those VMs: the plan changes nothing', () => {
    expect(changesNothing(held)).toBe(true);
  });

  it('stands only until the first young VM comes of age (then the same views plan differently)', () => {
    expect(held.heldUntil).toBe(NOW + 6 * 60_000);
    const later = planPool(snapshot([{ id: 0, age: 2 + 6 }, { id: 1, age: 3 + 6 }, { id: 2, age: 4 + 6 }], 1), settings('newest', 10), NOW);
    expect(later.scaleIn.map((d) => d.name)).toEqual(['vmss_2']);
    expect(later.heldByMinAge).toBe(1);
  });

  it('is off by default: the same pool without minAge scales in at once', () => {
    expect(planPool(snapshot([{ id: 0, age: 2 }, { id: 1, age: 3 }, { id: 2, age: 4 }], 1), settings(), NOW).scaleIn).toHaveLength(2);
  });
});

describe('a pool a target sizes, before that target has written a wanted count', () => {
  const plan = (wanted: number | undefined, sizedBy: string | undefined) =>
    planPool(snapshot([{ id: 0 }, { id: 1 }, { id: 2 }], wanted), { name: 'p', maxCount: 10, chunkSize: 5, instanceLimit: 1000, fastDelete: false, ...(sizedBy ? { sizedBy } : {}) }, NOW);

  it('holds at what runs: no raise toward maxCount, no scale-in, and the line names the target', () => {
    const held = plan(undefined, 'jobs');
    expect(held.raise).toBeUndefined();
    expect(held.scaleIn).toEqual([]);
    expect(held.lines).toContain('sized by target jobs, which has not written a wanted count yet: holding at the 3 VM(s) it runs');
  });

  it('adopts every VM it runs at takeover, so the target\'s first count sizes them all', () => {
    const cold = snapshot([{ id: 0, unadopted: true }, { id: 1, unadopted: true }, { id: 2, unadopted: true }], undefined);
    const held = planPool(cold, { name: 'p', maxCount: 10, chunkSize: 5, instanceLimit: 1000, fastDelete: false, sizedBy: 'jobs' }, NOW);
    expect(held.adopt.map((a) => a.name).sort()).toEqual(['vmss_0', 'vmss_1', 'vmss_2']);
    expect(held.raise).toBeUndefined();
  });

  it('says nothing of VMs on their way out while it holds: no target has a wanted count for them to stand for', () => {
    const leaving = planPool(snapshot([{ id: 0 }, { id: 1 }, { id: 2, deleting: true }], undefined), { name: 'p', maxCount: 10, chunkSize: 5, instanceLimit: 1000, fastDelete: false, sizedBy: 'jobs' }, NOW);
    expect(leaving.raise).toBeUndefined();
    expect(leaving.lines).toContain('sized by target jobs, which has not written a wanted count yet: holding at the 2 VM(s) it runs');
    expect(leaving.lines.some((l) => l.includes('on their way out'))).toBe(false);
  });

  it('follows the wanted count once written, and a pool no target sizes still fills to maxCount', () => {
    expect(plan(5, 'jobs').raise?.to).toBe(5);
    expect(plan(undefined, undefined).raise?.to).toBe(8);
  });
});

// A VM on its way out is still listed (ARM shows it Deleting, or the cache has not listed since
// the scale-in marked it) and the decision counts it as managed until it is gone; it serves
// nothing, so it must not stand for one of the wanted VMs when the count rises again.
describe('a raise beside VMs on their way out', () => {
  const poolSettings = (maxCount = 0) => ({ name: 'p', maxCount, chunkSize: 20, instanceLimit: 1000, fastDelete: false });
  const table: { name: string; vms: Vm[]; wanted: number; maxCount?: number; raise: { from: number; to: number } | undefined; scaledIn?: number[] }[] = [
    { name: 'a VM ARM lists Deleting does not count toward the wanted: the raise goes out at once', vms: [{ id: 0 }, { id: 1 }, { id: 2, deleting: true, marked: 1 }], wanted: 3, raise: { from: 2, to: 3 } },
    { name: 'nor one deleted by someone else', vms: [{ id: 0 }, { id: 1 }, { id: 2, deleting: true }], wanted: 4, raise: { from: 2, to: 4 } },
    // Its capacity still counts it (ARM lowers it when it accepts the delete, which goes out again).
    { name: 'nor a marked VM still listed alive, whose delete goes out again', vms: [{ id: 0 }, { id: 1 }, { id: 2, marked: 5 }], wanted: 3, raise: { from: 3, to: 4 }, scaledIn: [2] },
    { name: 'at the wanted count beside it: nothing raised', vms: [{ id: 0 }, { id: 1 }, { id: 2, deleting: true, marked: 1 }], wanted: 2, raise: undefined },
    // maxCount bounds the VMs a pool holds, and a VM being deleted is still held until it is gone.
    { name: 'maxCount still counts it', vms: [{ id: 0 }, { id: 1 }, { id: 2, deleting: true, marked: 1 }], wanted: 3, maxCount: 3, raise: undefined },
  ];

  it.each(table)('$name', ({ vms, wanted, maxCount, raise, scaledIn }) => {
    const plan = planPool(snapshot(vms, wanted), poolSettings(maxCount), NOW);
    expect(plan.raise && { from: plan.raise.from, to: plan.raise.to }).toEqual(raise);
    expect(plan.scaleIn.map((d) => Number(d.id.split('/').pop()))).toEqual(scaledIn ?? []);
    expect(plan.lines).toContain(`1 VM(s) still listed on their way out: counted on top of the wanted ${wanted}, not in its place`);
  });
});
