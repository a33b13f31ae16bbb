import { describe, expect, it } from 'vitest';
import { passReportJson, poolLine, renderStatus, shortId, targetLine } from '../../src/cli/render.js';
import { shownState, type PoolStatus } from '../../src/status/pool-status.js';
import { NO_POOL_NOTES } from '../../src/status/pool-notes.js';
import type { TargetStatus } from '../../src/status/target-status.js';

const NOW = Date.UTC(2026, 10, 30, 10, 30, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const vm = (n: number) => `azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/${n}`;

const running = (n: number) => ({ id: vm(n), state: 'Running' as const, powerState: 'PowerState/running', errorInfo: null });
function pool(o: Partial<PoolStatus> = {}): PoolStatus {
  return {
    name: 'workers',
    scaleSet: { resourceGroup: 'rg', name: 'vmss', orchestrationMode: 'Uniform', capacity: 6 },
    cache: { lastRefresh: iso(NOW - 38_000), nextRefresh: iso(NOW + 262_000), size: 6, refreshes: 3, lastError: null, slowdown: null },
    instances: [...[0, 1, 2, 3, 4].map(running), { id: vm(5), state: 'Creating', powerState: null, errorInfo: null }],
    machines: [0, 1, 2, 3, 4].map((n) => ({ providerId: vm(n), providerStatus: 'Running', address: null, createdAt: null, updatedAt: null })),
    safetySwitch: null,
    counts: { healthy: 2, broken: 0, creating: 1, warm: 0, stopped: 0, deleting: 0, unmanaged: 1, missing: 0 },
    backoffUntil: iso(NOW + 252_000),
    ...NO_POOL_NOTES,
    ...o,
  };
}
const web: TargetStatus = {
  name: 'web', desiredScale: 3, actualScale: 3, active: 'True', activeSince: iso(NOW - 120_000), reason: null, requestedScale: 3,
  activatorSeenSince: null, lastActivation: null, wakingSince: null, panicSince: null, lastError: null, sources: [],
};

describe('human status', () => {
  it('says each pool and target in one line first, with relative times', () => {
    expect(poolLine(pool(), NOW)).toBe('workers: 5/6 running, 1 creating, backed off 4m12s more, cache 38s old');
    expect(targetLine(web, NOW)).toBe('web: 3/3 ready (desired 3), active since 2m00s ago');
    expect(targetLine({ ...web, desiredScale: -1, active: 'False', reason: 'NoTraffic', actualScale: 0, requestedScale: 0 }, NOW)).toBe('web: 0/0 ready (no load sample yet), inactive (NoTraffic) since 2m00s ago');
    const text = renderStatus({ pools: [pool()], targets: [web], probes: [], decisions: [] }, NOW);
    expect(text.split('\n').slice(0, 4)).toEqual(['POOLS (1)', `  ${poolLine(pool(), NOW)}`, 'TARGETS (1)', `  ${targetLine(web, NOW)}`]);
  });

  it('counts a VM stopped or deallocated apart from the running ones (its state shown Stopped, whatever the provisioning state says)', () => {
    const stopped = { ...running(4), state: shownState({ state: 'Running', powerState: 'PowerState/deallocated' }), powerState: 'PowerState/deallocated' };
    expect(poolLine(pool({ instances: [...[0, 1, 2, 3].map(running), stopped], backoffUntil: null }), NOW)).toBe('workers: 4/6 running, 1 stopped, cache 38s old');
    expect([shownState({ state: 'Running', powerState: 'PowerState/stopping' }), shownState({ state: 'Running', powerState: 'PowerState/starting' }), shownState({ state: 'Creating', powerState: 'PowerState/deallocated' })]).toEqual(['Stopped', 'Running', 'Creating']);
  });

  it('shortens VM ids to rg/vmss/N, keeping the full id only where a command needs it', () => {
    expect(shortId(vm(3))).toBe('rg/vmss/3');
    expect(shortId('azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/flex_1')).toBe('rg/flex_1');
    expect(shortId('slot:1')).toBe('slot:1');
    const text = renderStatus({ pools: [pool({ safetySwitch: { providerOnly: [], inventoryOnly: [vm(9)], since: iso(NOW - 60_000) } })], targets: [], probes: [], decisions: [] }, NOW);
    expect(text).toContain('    Running   rg/vmss/0\n');
    expect(text).toContain(`in the inventory only: rg/vmss/9  (drover machines forget --pool workers ${vm(9)})`);
    expect(text).toContain('SAFETY SWITCH since 10:29:00Z (1m00s ago)');
    expect(text.replace(`--pool workers ${vm(9)}`, '')).not.toContain('azure://');
  });

  it('prints pass reports with ISO times, as status does', () => {
    const json = passReportJson({
      startedAt: NOW,
      finishedAt: NOW + 1234,
      outcomes: [{ ref: { kind: 'pool', name: 'workers' }, status: 'busy', heldBy: 'h', until: NOW + 60_000 }],
      deferred: [],
      enqueued: [],
      errors: 0,
    });
    expect(json).toMatchObject({ startedAt: '2026-11-30T10:30:00.000Z', finishedAt: '2026-11-30T10:30:01.234Z', durationMs: 1234 });
    expect(json.outcomes[0]).toMatchObject({ until: '2026-11-30T10:31:00.000Z' });
  });
});
