import { describe, expect, it } from 'vitest';
import type { Status } from '../../src/status/status.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import type { TargetStatus } from '../../src/status/target-status.js';
import { storyLines } from '../../sim/story.js';

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
    counts: { healthy: 2, broken: 0, creating: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 },
    ...over,
  };
}

function target(over: Partial<TargetStatus> = {}): TargetStatus {
  return {
    name: 'web', desiredScale: 1, actualScale: 1, active: 'True', activeSince: null, reason: null, requestedScale: 1,
    activatorSeenSince: null, lastActivation: null, wakingSince: null, panicSince: null, lastError: null, ...over,
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
        instances: [0, 1, 2, 3].map((n) => ({ id: vm(n), state: n < 2 ? ('Running' as const) : ('Creating' as const), powerState: null, errorInfo: null })),
        machines: [0, 1, 2, 3].map((n) => ({ providerId: vm(n), providerStatus: 'Running', address: null, createdAt: null, updatedAt: null })),
      }),
      want: ['workers: capacity raised 2 → 4', 'workers: adopted rg/vmss/2, rg/vmss/3 into the inventory', '  = workers: 2/4 running, 2 creating, inventory 4'],
    },
    {
      name: 'a back-off after failed provisioning, with what is left of it',
      after: pool({ backoffUntil: new Date(NOW + 252_000).toISOString() }),
      want: ['workers: backed off: no new capacity for 4m12s', '  = workers: 2/2 running, inventory 2, backed off 4m12s more'],
    },
    {
      name: 'the safety switch with the ids on each side',
      after: pool({ safetySwitch: { providerOnly: [vm(1)], inventoryOnly: [vm(7)], since: new Date(NOW).toISOString() } }),
      want: ['workers: SAFETY SWITCH tripped: rg/vmss/1 in the scale set only, rg/vmss/7 in the inventory only', '  = workers: 2/2 running, inventory 2, SAFETY SWITCH tripped'],
    },
    {
      name: 'a VM that went away',
      after: pool({ instances: [pool().instances[0]!] }),
      want: ['workers: deleted rg/vmss/1', '  = workers: 1/2 running, inventory 2'],
    },
  ])('pool: $name', ({ after, want }) => {
    expect(storyLines(status(pool(), target()), status(after, target()), NOW)).toEqual(want);
  });

  it('a cleared safety switch is told too', () => {
    const tripped = pool({ safetySwitch: { providerOnly: [vm(1)], inventoryOnly: [], since: new Date(NOW).toISOString() } });
    expect(storyLines(status(tripped, target()), status(pool(), target()), NOW)).toEqual(['workers: safety switch cleared', '  = workers: 2/2 running, inventory 2']);
  });

  it.each([
    { name: 'scaled up, replicas not ready yet', before: target(), after: target({ requestedScale: 3, desiredScale: 3 }), want: ['web: scaled 1 → 3', '  = web: 1/3 ready, active, desired 3'] },
    { name: 'the replicas caught up', before: target({ requestedScale: 3, desiredScale: 3 }), after: target({ requestedScale: 3, desiredScale: 3, actualScale: 3 }), want: ['web: all 3 replica(s) ready', '  = web: 3/3 ready, active, desired 3'] },
    {
      name: 'woke from zero',
      before: target({ active: 'False', reason: 'NoTraffic', requestedScale: 0, actualScale: 0, desiredScale: 0 }),
      after: target({ lastActivation: { at: new Date(NOW).toISOString(), latencyMs: 3017 } }),
      want: ['web: scaled 0 → 1', 'web: active', 'web: all 1 replica(s) ready', 'web: woke from zero in 3017 ms', '  = web: 1/1 ready, active, desired 1'],
    },
  ])('target: $name', ({ before, after, want }) => {
    expect(storyLines(status(pool(), before), status(pool(), after), NOW)).toEqual(want);
  });

  it('the first reading is the summaries alone', () => {
    expect(storyLines(undefined, status(pool(), target()), NOW)).toEqual(['  = workers: 2/2 running, inventory 2', '  = web: 1/1 ready, active, desired 1']);
  });
});
