/**
 * The upstream provisioner's reconcile table (peer-cases 3(b).3), run through `planPool`: each
 * row's listings become a scale set snapshot (a used or possibly used machine is a listed VM,
 * an unused one a slot of headroom, an inventory machine the provider leaves out a VM the
 * capacity still counts but the list omits), and the plan must carry the row's decision and
 * bring up exactly its machines: listed VMs adopted, slots as one capacity raise. Rows that
 * cannot happen on a scale set (a machine of undefined availability, a used VM Drover cannot
 * adopt) run through the decision alone, `decideProvisioning`, the plan's heart.
 */
import { describe, expect, it } from 'vitest';
import { decideProvisioning, type ProvisioningDecision } from '../../src/pool/provisioning.js';
import { inventoryMachine, type InventoryRow, type Machine, type ProviderId } from '../../src/pool/machine.js';
import { planPool } from '../../src/pool/plan.js';
import type { PoolSnapshot } from '../../src/pool/snapshot.js';
import type { CachedInstance } from '../../src/cache/instance.js';
import { inventoryFromRows } from '../../src/pool/inventory.js';
import { K, KF, P, U, ids, machine, row } from './support/machine-fakes.js';

interface Row {
  name: string;
  provider: Machine[];
  inventory?: InventoryRow[];
  maxCount?: number;
  chunkSize?: number;
  failCreate?: ProviderId[];
  wantCreateCalls: ProviderId[];
  want: Partial<ProvisioningDecision> & { kind: ProvisioningDecision['kind'] };
  wantSkipped?: ProviderId[];
  /** Why this row cannot be a scale set's; it then runs through the decision alone. */
  notOnAzure?: string;
}

const rows: Row[] = [
  {
    name: 'an empty provider and inventory bring nothing up',
    provider: [],
    wantCreateCalls: [],
    want: { kind: 'noCapacity', managed: 0, reason: 'No more capacity available.' },
  },
  {
    name: 'all unused machines are brought up, in ascending id order',
    provider: [U('c'), U('a'), U('b')],
    wantCreateCalls: ['a', 'b', 'c'],
    want: { kind: 'bringUp', managed: 0, available: 3, needed: 3 },
  },
  {
    name: 'max count caps the machines brought up',
    provider: ids('u', 5).map(U),
    maxCount: 2,
    wantCreateCalls: ['u01', 'u02'],
    want: { kind: 'bringUp', managed: 0, available: 5, needed: 2 },
  },
  {
    name: 'at the limit nothing more is brought up',
    provider: ids('x', 10).map(K),
    inventory: ids('x', 10).map((id) => row(id)),
    wantCreateCalls: [],
    want: { kind: 'atLimit', managed: 10, maxCount: 10 },
  },
  {
    name: 'above the limit nothing is scaled down',
    provider: [...ids('x', 12).map(K), U('a')],
    inventory: ids('x', 12).map((id) => row(id)),
    wantCreateCalls: [],
    want: { kind: 'atLimit', managed: 12, maxCount: 10 },
  },
  {
    name: 'without a limit one chunk is brought up',
    provider: ids('u', 30).map(U),
    maxCount: 0,
    chunkSize: 20,
    wantCreateCalls: ids('u', 20),
    want: { kind: 'bringUp', managed: 0, available: 30, needed: 30 },
  },
  {
    name: 'when fewer are needed than a chunk only those are brought up',
    provider: [...ids('x', 7).map(K), ...ids('u', 5).map(U)],
    inventory: ids('x', 7).map((id) => row(id)),
    chunkSize: 4,
    wantCreateCalls: ['u01', 'u02', 'u03'],
    want: { kind: 'bringUp', managed: 7, available: 5, needed: 3 },
  },
  {
    name: 'a chunk caps the machines needed',
    provider: ids('u', 100).map(U),
    chunkSize: 4,
    wantCreateCalls: ids('u', 4),
    want: { kind: 'bringUp', managed: 0, available: 100, needed: 10 },
  },
  {
    name: 'a used provider machine missing from the inventory refuses all work',
    provider: [K('x'), U('a')],
    wantCreateCalls: [],
    want: { kind: 'safetySwitch', providerOnly: ['x'], inventoryOnly: [] },
    notOnAzure: 'every listed VM is possibly used: one without a row is adopted, never known used',
  },
  {
    name: 'an inventory machine missing from the provider refuses all work',
    provider: [K('x'), U('a')],
    inventory: [row('x'), row('y', null)],
    wantCreateCalls: [],
    want: { kind: 'safetySwitch', providerOnly: [], inventoryOnly: ['y'] },
  },
  {
    name: 'a failed provider machine missing from the inventory is excused and still counted as managed',
    provider: [KF('x'), U('a'), U('b')],
    maxCount: 2,
    wantCreateCalls: ['a'],
    want: { kind: 'bringUp', managed: 1, needed: 1 },
  },
  {
    name: 'a failed inventory machine missing from the provider is excused but not counted as managed',
    provider: [U('a')],
    inventory: [row('y', 'ProvisioningFailedPermanent')],
    maxCount: 1,
    wantCreateCalls: ['a'],
    want: { kind: 'bringUp', managed: 0, needed: 1 },
  },
  {
    name: 'a machine of undefined availability refuses all work before any creation',
    provider: [U('a'), { ...machine('m', 'Undefined'), addr: '10.0.0.4' }],
    wantCreateCalls: [],
    want: {
      kind: 'invalidAvailability',
      reason: 'machine has invalid availability (ID: m, Addr: 10.0.0.4): Undefined',
    },
    notOnAzure: 'a scale set never reports an undefined availability',
  },
  {
    name: 'a possibly used machine with an inventory row is managed',
    provider: [P('x')],
    inventory: [row('x')],
    wantCreateCalls: [],
    want: { kind: 'noCapacity', managed: 1 },
  },
  {
    name: 'a possibly used machine without an inventory row is brought up',
    provider: [P('x')],
    wantCreateCalls: ['x'],
    want: { kind: 'bringUp', managed: 0 },
  },
  {
    name: 'a possibly used machine with the invalid id is free capacity',
    provider: [P('invalid')],
    wantCreateCalls: ['invalid'],
    want: { kind: 'bringUp', managed: 0 },
  },
  {
    name: 'an inventory row with an unparseable id is dropped with an error log',
    provider: [K('x')],
    inventory: [row('x'), row('bad:z')],
    wantCreateCalls: [],
    want: { kind: 'noCapacity', managed: 1 },
    wantSkipped: ['bad:z'],
  },
  {
    name: 'a dropped inventory row leaves its provider machine unmatched, which refuses all work',
    provider: [K('x'), K('bad:z')],
    inventory: [row('x'), row('bad:z')],
    wantCreateCalls: [],
    want: { kind: 'safetySwitch', providerOnly: ['bad:z'], inventoryOnly: [] },
    notOnAzure: 'the instance cache only holds VMs with a valid resource id',
  },
  {
    name: 'below the limit with nothing available nothing is brought up',
    provider: ids('x', 3).map(K),
    inventory: ids('x', 3).map((id) => row(id)),
    wantCreateCalls: [],
    want: { kind: 'noCapacity', managed: 3, reason: 'No more capacity available.' },
  },
];

const PREFIX = 'azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/';
const az = (id: ProviderId) => (id.startsWith('bad:') ? id : PREFIX + id);
const short = (id: ProviderId) => id.replace(PREFIX, '');

/** The row's listings as a scale set: VMs listed, VMs the capacity counts but the list leaves out, and headroom. */
function snapshotOf(r: Row): PoolSnapshot {
  const inventory = r.inventory ?? [];
  const listed = r.provider.filter((m) => m.availability !== 'KnownUnused' && m.id !== 'invalid');
  const instances: CachedInstance[] = listed.map((m) => ({
    id: az(m.id),
    name: m.id,
    powerState: 'PowerState/running',
    state: 'Running',
    errorInfo: m.failed ? { errorClass: 'Other', errorCode: 'ProvisioningFailed', errorMessage: 'failed' } : null,
  }));
  const listedIds = new Set(listed.map((m) => m.id));
  const hidden = inventory.filter((i) => !listedIds.has(i.providerId) && !i.providerId.startsWith('bad:') && i.providerStatus !== 'ProvisioningFailedPermanent').length;
  const capacity = listed.length + hidden;
  const rows = inventory.map((i) => ({
    partitionKey: 'workers',
    rowKey: az(i.providerId),
    etag: 'e',
    props: { providerStatus: i.providerStatus ?? undefined, createdAt: 0, updatedAt: 0 },
  }));
  return {
    scaleSet: { id: 'ss', name: 'ss', location: undefined, orchestrationMode: 'Uniform', capacity, etag: '"1"', provisioningState: 'Succeeded' },
    instances,
    previous: instances,
    inventory: inventoryFromRows(rows),
  };
}

const settings = (r: Row, instanceLimit: number) => ({ name: 'workers', maxCount: r.maxCount ?? 10, chunkSize: r.chunkSize ?? 20, instanceLimit, fastDelete: false });

describe('the upstream reconcile table, through planPool', () => {
  it.each(rows.filter((r) => !r.notOnAzure))('$name', (r) => {
    const snapshot = snapshotOf(r);
    const slots = r.provider.filter((m) => m.availability === 'KnownUnused' || m.id === 'invalid').length;
    const plan = planPool(snapshot, settings(r, (snapshot.scaleSet.capacity ?? 0) + slots), 0);

    const { kind, ...rest } = r.want;
    expect(plan.decision.kind).toBe(kind);
    const decision = plan.decision as Record<string, unknown>;
    for (const [key, value] of Object.entries(rest)) {
      const got = decision[key];
      expect(Array.isArray(got) ? (got as string[]).map(short) : got, key).toEqual(value);
    }
    // Bringing up: the listed VMs are adopted, the slots are one capacity raise.
    const wantAdopted = r.wantCreateCalls.filter((id) => r.provider.some((m) => m.id === id && m.availability !== 'KnownUnused' && id !== 'invalid'));
    expect(plan.adopt.map((a) => short(a.id))).toEqual(wantAdopted);
    const raised = plan.raise ? plan.raise.to - plan.raise.from : 0;
    expect(raised).toBe(r.wantCreateCalls.length - wantAdopted.length);
    expect(plan.skipped).toEqual(r.wantSkipped ?? []);
    // While the switch holds the plan writes nothing but the switch's record.
    if (plan.switchHolds) expect([plan.adopt, plan.retire, plan.delete, plan.statusUpdates, plan.raise ?? []]).toEqual([[], [], [], [], []]);
  });

  it.each(rows.filter((r) => r.notOnAzure))('$name (decision only: $notOnAzure)', (r) => {
    const inventory = (r.inventory ?? []).filter((i) => !i.providerId.startsWith('bad:'));
    const decision = decideProvisioning(r.provider, inventory.map(inventoryMachine), { maxCount: r.maxCount ?? 10, chunkSize: r.chunkSize ?? 20 });
    expect(decision).toMatchObject(r.want);
    if (decision.kind === 'bringUp') expect(decision.machines.map((m: Machine) => m.id)).toEqual(r.wantCreateCalls);
  });

  it('adopting running VMs is bounded by maxCount, not by the chunk; new VMs by both', () => {
    const r: Row = { name: 'adopt', provider: [...ids('p', 30).map(P), ...ids('u', 30).map(U)], maxCount: 40, chunkSize: 4, wantCreateCalls: [], want: { kind: 'bringUp' } };
    const snapshot = snapshotOf(r);
    const plan = planPool(snapshot, settings(r, 60), 0);
    expect(plan.adopt).toHaveLength(30);
    expect(plan.raise).toEqual({ from: 30, to: 34, etag: '"1"' });
  });

  it('says the bring-up in the real numbers: VMs adopted, VMs new and the chunk as configured', () => {
    const r: Row = { name: 'adopt', provider: [...ids('p', 2).map(P), ...ids('u', 8).map(U)], maxCount: 10, chunkSize: 2, wantCreateCalls: [], want: { kind: 'bringUp' } };
    const plan = planPool(snapshotOf(r), settings(r, 10), 0);
    expect([plan.adopt.length, plan.raise]).toEqual([2, { from: 2, to: 4, etag: '"1"' }]);
    expect(plan.lines).toContain('Below managed machine limit (10), bringing up 4 machines: 2 running VM(s) to adopt and 2 new (0 managed, 10 available, chunk 2 for new VMs)');
  });
});
