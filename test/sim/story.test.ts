import { describe, expect, it } from 'vitest';
import type { Status } from '../../src/status/status.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { NO_POOL_NOTES } from '../../src/status/pool-notes.js';
import type { TargetStatus } from '../../src/status/target-status.js';
import { storyLines } from '../../sim/story.js';
import { settledAt } from '../../sim/steps.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const vm = (n: number) => `azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/${n}`;

function pool(over: Partial<PoolStatus> = {}): PoolStatus {
  return {
    name: 'workers',
    scaleSet: { resourceGroup: 'rg', name: 'vmss', orchestrationMode: 'Uniform', capacity: 2 },
    cache: { lastRefresh: new Date(NOW).toISOString(), nextRefresh: null, size: 2, refreshes: 1, lastError: null, slowdown: null },
    instances: [0, 1].map((n) => ({ id: vm(n), state: 'Running' as const, powerState: 'PowerState/running', errorInfo: null })),
    machines: [0, 1].map((n) => ({ providerId: vm(n), providerStatus: 'Running', address: null, createdAt: null, updatedAt: null })),
    safetySwitch: null,
    backoffUntil: null,
    ...NO_POOL_NOTES,
    counts: { healthy: 2, broken: 0, creating: 0, warm: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 },
    ...over,
  };
}

function target(over: Partial<TargetStatus> = {}): TargetStatus {
  return {
    name: 'web', desiredScale: 1, actualScale: 1, active: 'True', activeSince: null, reason: null, requestedScale: 1,
    activatorSeenSince: null, lastActivation: null, wakingSince: null, panicSince: null, lastError: null, sources: [], ...over,
  };
}

const status = (p: PoolStatus, t: TargetStatus): Status => ({ pools: [p], targets: [t], probes: [], decisions: [] });

describe('the demo story', () => {
  it('tells nothing when nothing changed', () => {
    expect(storyLines(status(pool(), target()), status(pool(), target()), NOW)).toEqual([]);
  });

  it.each([
    {
      name: 'a capacity raise and the VMs it brought, adopted',
      after: pool({
        scaleSet: { resourceGroup: 'rg', name: 'vmss', orchestrationMode: 'Uniform', capacity: 4 },
        counts: { healthy: 2, broken: 0, creating: 2, warm: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 },
        instances: [0, 1, 2, 3].map((n) => ({ id: vm(n), state: n < 2 ? ('Running' as const) : ('Creating' as const), powerState: null, errorInfo: null })),
        machines: [0, 1, 2, 3].map((n) => ({ providerId: vm(n), providerStatus: 'Running', address: null, createdAt: null, updatedAt: null })),
      }),
      want: ['workers: capacity raised 2 → 4', 'workers: adopted rg/vmss/2, rg/vmss/3 into the inventory', '  = workers: capacity 4, 2 healthy, 2 creating, inventory 4'],
    },
    {
      name: 'a back-off after failed provisioning, with what is left of it',
      after: pool({ backoffUntil: new Date(NOW + 252_000).toISOString() }),
      want: ['workers: backed off: no new capacity for 4m12s', '  = workers: capacity 2, 2 healthy, inventory 2, creations backed off until 12:04:12Z'],
    },
    {
      name: 'the safety switch with the ids on each side',
      after: pool({ safetySwitch: { providerOnly: [vm(1)], inventoryOnly: [vm(7)], since: new Date(NOW).toISOString() } }),
      want: ['workers: SAFETY SWITCH tripped: rg/vmss/1 in the scale set only, rg/vmss/7 in the inventory only', '  = workers: capacity 2, 2 healthy, inventory 2, SAFETY SWITCH tripped'],
    },
    {
      name: 'a VM that went away',
      after: pool({ instances: [pool().instances[0]!], counts: { healthy: 1, broken: 0, creating: 0, warm: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 1 } }),
      want: ['workers: deleted rg/vmss/1', '  = workers: capacity 2, 1 healthy, 1 missing, inventory 2'],
    },
  ])('pool: $name', ({ after, want }) => {
    expect(storyLines(status(pool(), target()), status(after, target()), NOW)).toEqual(want);
  });

  it('a cleared safety switch is told too', () => {
    const tripped = pool({ safetySwitch: { providerOnly: [vm(1)], inventoryOnly: [], since: new Date(NOW).toISOString() } });
    expect(storyLines(status(tripped, target()), status(pool(), target()), NOW)).toEqual(['workers: safety switch cleared', '  = workers: capacity 2, 2 healthy, inventory 2']);
  });

  it.each([
    { name: 'scaled up, replicas not ready yet', before: target(), after: target({ requestedScale: 3, desiredScale: 3 }), want: ['web: scaled 1 → 3', '  = web: ready 1, scale 3, desired 3, active'] },
    { name: 'the replicas caught up', before: target({ requestedScale: 3, desiredScale: 3 }), after: target({ requestedScale: 3, desiredScale: 3, actualScale: 3 }), want: ['web: all 3 replica(s) ready', '  = web: ready 3, scale 3, desired 3, active'] },
    {
      name: 'woke from zero',
      before: target({ active: 'False', reason: 'NoTraffic', requestedScale: 0, actualScale: 0, desiredScale: 0 }),
      after: target({ lastActivation: { at: new Date(NOW).toISOString(), latencyMs: 3017 } }),
      want: ['web: scaled 0 → 1', 'web: active', 'web: all 1 replica(s) ready', 'web: woke from zero in 3017 ms', '  = web: ready 1, scale 1, desired 1, active'],
    },
  ])('target: $name', ({ before, after, want }) => {
    expect(storyLines(status(pool(), before), status(pool(), after), NOW)).toEqual(want);
  });

  it('right after a VM failed, the summary counts it broken as status does, not creating', () => {
    const oom = { errorClass: 'OutOfResources' as const, errorCode: 'provisioning-state-failed', errorMessage: 'out of capacity' };
    const before = pool({ counts: { healthy: 2, broken: 0, creating: 1, warm: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 } });
    const after = pool({
      instances: [...pool().instances, { id: vm(4), state: 'Creating', powerState: 'PowerState/stopped', errorInfo: oom }],
      counts: { healthy: 2, broken: 1, creating: 0, warm: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 },
    });
    before.instances.push({ id: vm(4), state: 'Creating', powerState: null, errorInfo: null });
    expect(storyLines(status(before, target()), status(after, target()), NOW)).toEqual([
      'workers: rg/vmss/4 failed: OutOfResources (provisioning-state-failed)',
      '  = workers: capacity 2, 2 healthy, 1 broken, inventory 2',
    ]);
  });

  it('tells the summary again when it changed without a change line, so the last one says how things are', () => {
    const scaledDown = target({ requestedScale: 0, desiredScale: 0, actualScale: 1, active: 'False', reason: 'NoTraffic' });
    expect(storyLines(status(pool(), target()), status(pool(), scaledDown), NOW)).toEqual([
      'web: scaled 1 → 0',
      'web: inactive (NoTraffic)',
      '  = web: ready 1, scale 0, desired 0, inactive (NoTraffic)',
    ]);
    // The last replica goes: no change line of its own, but the summary follows.
    expect(storyLines(status(pool(), scaledDown), status(pool(), { ...scaledDown, actualScale: 0 }), NOW)).toEqual(['  = web: ready 0, scale 0, desired 0, inactive (NoTraffic)']);
  });

  it('names every figure of a summary: no "3/1" to read as three of one', () => {
    expect(storyLines(undefined, status(pool(), target({ actualScale: 3, requestedScale: 3, desiredScale: 1 })), NOW).at(-1)).toBe('  = web: ready 3, scale 3, desired 1, active');
    expect(storyLines(undefined, status(pool(), target({ desiredScale: -1 })), NOW).at(-1)).toBe('  = web: ready 1, scale 1, desired unknown (no load sample yet), active');
  });

  it('the first reading is the summaries alone', () => {
    expect(storyLines(undefined, status(pool(), target()), NOW)).toEqual(['  = workers: capacity 2, 2 healthy, inventory 2', '  = web: ready 1, scale 1, desired 1, active']);
  });

  describe('a pool sized by a target', () => {
    /** The story of the pool going from `a` to `b`, the target unchanged. */
    const told = (a: PoolStatus, b: PoolStatus) => storyLines(status(a, target()), status(b, target()), NOW);
    const sized = (n: number, over: Partial<PoolStatus> = {}) => {
      const ids = Array.from({ length: n }, (_, k) => k);
      return pool({
        wanted: n,
        scaleSet: { resourceGroup: 'rg', name: 'vmss', orchestrationMode: 'Uniform', capacity: n },
        instances: ids.map((k) => ({ id: vm(k), state: 'Running' as const, powerState: 'PowerState/running', errorInfo: null, ...(k === 1 ? { protected: true as const } : {}) })),
        machines: ids.map((k) => ({ providerId: vm(k), providerStatus: 'Running', address: null, createdAt: null, updatedAt: null })),
        counts: { healthy: n, broken: 0, creating: 0, warm: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 },
        ...over,
      });
    };

    it('names the wanted count first in the summary, and a VM that became protected', () => {
      const before = sized(2, { instances: sized(2).instances.map(({ protected: _p, ...i }) => i) });
      expect(told(before, sized(2))).toEqual([
        'workers: rg/vmss/1 is protected from scale-in',
        '  = workers: wanted 2, capacity 2, 2 healthy, inventory 2',
      ]);
    });

    it('a scale-in of healthy VMs names the protected VMs it spared, and the capacity is not said to be lowered by Drover', () => {
      const before = sized(4);
      const going = sized(4, {
        wanted: 1,
        instances: before.instances.map((i) => (i.id === vm(1) ? i : { ...i, state: 'Deleting' as const })),
        counts: { healthy: 1, broken: 0, creating: 0, warm: 0, stopped: 0, deleting: 3, unmanaged: 0, missing: 0 },
      });
      expect(told(before, going)).toEqual([
        'workers: deleting rg/vmss/0',
        'workers: deleting rg/vmss/2',
        'workers: deleting rg/vmss/3',
        'workers: spared rg/vmss/1: protected from scale-in',
        '  = workers: wanted 1, capacity 4, 1 healthy, 3 deleting, inventory 4',
      ]);
      const gone = sized(1, { wanted: 1, instances: [before.instances[1]!], machines: [before.machines[1]!] });
      expect(told(going, gone)).toEqual([
        'workers: capacity 4 → 1: the deleted VMs left it',
        'workers: deleted rg/vmss/0',
        'workers: deleted rg/vmss/2',
        'workers: deleted rg/vmss/3',
        '  = workers: wanted 1, capacity 1, 1 healthy, inventory 1',
      ]);
    });

    it('a VM parked by a scale-in is told apart from a deleted one, and so is its wake', () => {
      const before = sized(3);
      const parking = sized(3, {
        wanted: 1,
        instances: before.instances.map((i) => (i.id === vm(2) ? { ...i, powerState: 'PowerState/deallocated' } : i.id === vm(0) ? { ...i, state: 'Deleting' as const } : i)),
        machines: before.machines.map((m) => (m.providerId === vm(2) ? { ...m, providerStatus: 'Parked' } : m)),
        counts: { healthy: 1, broken: 0, creating: 0, warm: 1, stopped: 0, deleting: 1, unmanaged: 0, missing: 0 },
      });
      expect(told(before, parking)).toEqual([
        'workers: deleting rg/vmss/0',
        'workers: parked rg/vmss/2 in the warm buffer (deallocated, not deleted)',
        'workers: spared rg/vmss/1: protected from scale-in',
        '  = workers: wanted 1, capacity 3, 1 healthy, 1 warm, 1 deleting, inventory 3',
      ]);
      const waking = { ...parking, wanted: 2, machines: parking.machines.map((m) => (m.providerId === vm(2) ? { ...m, providerStatus: 'Waking' } : m)) };
      expect(told(parking, waking)).toEqual([
        'workers: waking rg/vmss/2 from the warm buffer (a start, not a creation)',
        '  = workers: wanted 2, capacity 3, 1 healthy, 1 warm, 1 deleting, inventory 3',
      ]);
    });

    it('a broken VM fast-deleted is no scale-in: nothing is said to be spared', () => {
      const oom = { errorClass: 'OutOfResources' as const, errorCode: 'provisioning-state-failed', errorMessage: 'out of capacity' };
      const before = sized(3, { instances: sized(3).instances.map((i) => (i.id === vm(2) ? { ...i, errorInfo: oom } : i)) });
      const after = sized(3, { instances: before.instances.map((i) => (i.id === vm(2) ? { ...i, state: 'Deleting' as const } : i)) });
      expect(told(before, after).filter((l) => !l.startsWith('  ='))).toEqual(['workers: deleting rg/vmss/2']);
    });

    it.each([
      { name: 'settled at 6', p: sized(6), count: 6, want: true },
      { name: 'settled at 6, asked at 1', p: sized(6), count: 1, want: false },
      { name: 'one still creating', p: sized(6, { counts: { healthy: 5, broken: 0, creating: 1, warm: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 } }), count: 6, want: false },
      { name: 'settled at 1 with 2 parked', p: sized(3, { counts: { healthy: 1, broken: 0, creating: 0, warm: 2, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 } }), count: 1, warm: 2, want: true },
      { name: 'settled at 1, but 2 parked where none are expected', p: sized(3, { counts: { healthy: 1, broken: 0, creating: 0, warm: 2, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 } }), count: 1, want: false },
      { name: 'one still listed while deleting', p: sized(2, { counts: { healthy: 1, broken: 0, creating: 0, warm: 0, stopped: 0, deleting: 1, unmanaged: 0, missing: 0 } }), count: 1, want: false },
      // The scale set shows 1, but the deleted VM's row is still in the inventory: the story's line would say "inventory 2".
      { name: 'deleted, but its row not yet gone from the inventory', p: sized(1, { machines: sized(2).machines, counts: { healthy: 1, broken: 0, creating: 0, warm: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 1 } }), count: 1, want: false },
    ])('the demo waits for the pool to settle: $name', ({ p, count, warm, want }) => {
      expect(settledAt(p, count, warm)).toBe(want);
    });
  });
});
