// A target that sleeps without an activator (every source queue or push, no activator), through
// the production scale step: activation thresholds, the cooldown counted from the last active
// observation, and never N → 0 in one write, even where the rate limits would allow it. And the
// configuration rules that let such a target (and only such a target) go without an activator.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { markInactive } from '../../src/scaler/read/conditions.js';
import { planDriver, SECOND, settingsOf, T0 } from './plan-driver.js';

const queue = (extra: Record<string, unknown> = {}) => ({ load: { source: 'queue', queueName: 'jobs', connection: 'UseDevelopmentStorage=true', targetPerReplica: 1, ...extra } });
const HOUR = 3_600 * SECOND;

describe('a queue-driven target without an activator', () => {
  it('steps to 1 before 0 even when maxScaleDownRate would allow N → 0 at once', async () => {
    const settings = settingsOf({ ...queue(), cooldown: '10s', maxScaleDownRate: 1000 });
    expect(settings.sleepsWithoutActivator).toBe(true);
    const d = planDriver(settings, { current: 6, record: { adoptedAt: T0 - HOUR } });
    const first = await d.step({ at: T0, load: 0 });
    expect(first).toMatchObject({ written: [6, 1], boundBy: 'StepToZero' });
    const second = await d.step({ at: T0 + SECOND, load: 0 });
    expect(second.written).toEqual([1, 0]);
    expect(second.outcome.after.active?.status).toBe('False');
  });

  it('waits out the cooldown from the last active reading, asking for a reconcile when it ends', async () => {
    const d = planDriver(settingsOf({ ...queue(), cooldown: '10s' }), { current: 1, record: { adoptedAt: T0 - HOUR } });
    await d.step({ at: T0, load: 1 });
    expect(d.record?.lastActiveAt).toBe(T0);
    const held = await d.step({ at: T0 + 5 * SECOND, load: 0 });
    expect(held).toMatchObject({ scale: 1, boundBy: 'CooldownPending', written: undefined });
    expect(held.outcome.followUps.map((f) => f.at)).toContain(T0 + 10 * SECOND + 1);
    // Exactly the cooldown is not past it (strictly after, as KEDA).
    expect((await d.step({ at: T0 + 10 * SECOND, load: 0 })).written).toBeUndefined();
    expect((await d.step({ at: T0 + 11 * SECOND, load: 0 })).written).toEqual([1, 0]);
  });

  it('stays at zero while no source is above its activation threshold, and wakes once one is', async () => {
    const d = planDriver(settingsOf(queue({ activationThreshold: 1 })), { current: 0, conditions: markInactive({}, T0 - HOUR) });
    const below = await d.step({ at: T0, load: 0.5 });
    expect(below).toMatchObject({ scale: 0, boundBy: 'Inactive', written: undefined });
    const above = await d.step({ at: T0 + SECOND, load: 2 });
    expect(above.written).toEqual([0, 2]);
  });

  it('counts the cooldown of a target taken over from its adoption: idle, it is not put to sleep sooner', async () => {
    const d = planDriver(settingsOf({ ...queue(), cooldown: '1m' }), { current: 1, record: { adoptedAt: T0 } });
    expect((await d.step({ at: T0 + 30 * SECOND, load: 0 })).boundBy).toBe('CooldownPending');
    expect((await d.step({ at: T0 + 61 * SECOND, load: 0 })).written).toEqual([1, 0]);
  });

  it('takes no step towards zero while its queue cannot be read, past the cooldown too', async () => {
    const d = planDriver(settingsOf({ ...queue(), cooldown: '10s' }), { current: 2, record: { adoptedAt: T0 - HOUR } });
    await d.step({ at: T0, load: 0 });
    expect(d.current).toBe(1);
    const failing = await d.step({ at: T0 + SECOND, load: 0, failed: true });
    expect(failing).toMatchObject({ scale: 1, boundBy: 'SourceFailing', written: undefined });
    expect((await d.step({ at: T0 + 2 * SECOND, load: 0 })).written).toEqual([1, 0]);
  });

  it('keeps Knative’s activator rules for a queue target that has an activator', () => {
    expect(settingsOf({ ...queue(), activator: { probeUrl: 'http://web.example/healthz' } }).sleepsWithoutActivator).toBeUndefined();
  });
});

describe('configuration of sources and activators', () => {
  const load = (target: Record<string, unknown>) => () =>
    parseConfig({ kubernetes: { kubeconfig: '/nonexistent' }, targets: [{ name: 'w', scaleTargetRef: { kind: 'Deployment', name: 'w' }, ...target }] });

  it('lets queue and push targets go without an activator, and no other', () => {
    expect(load(queue())).not.toThrow();
    expect(load({ load: { sources: [{ name: 'q', ...queue().load }, { name: 'p', source: 'push', targetPerReplica: 2 }] } })).not.toThrow();
    expect(load({ load: { sources: [{ name: 'q', ...queue().load }, { name: 'h', source: 'http', url: 'http://m.example/x', targetPerReplica: 2 }] } })).toThrow(/targets\[0\]\.activator: required/);
    expect(load({})).toThrow(/targets\[0\]\.activator: required/);
  });

  it('names the source that lacks an account, and refuses a second push source', () => {
    expect(load({ load: { sources: [{ name: 'q', source: 'queue', queueName: 'jobs', targetPerReplica: 1 }] } })).toThrow(/targets\[0\]\.load\.sources\[0\]: a queue source needs connection or accountName/);
    expect(load({ load: { sources: [{ name: 'a', source: 'push', targetPerReplica: 1 }, { name: 'b', source: 'push', targetPerReplica: 1 }] } })).toThrow(/at most one push source/);
  });

  it('reads one source as it always did, with an optional activation threshold', () => {
    const config = load(queue({ activationThreshold: 3 }))();
    expect(config.targets[0]!.load).toEqual({
      sources: [{ name: 'load', source: 'queue', queueName: 'jobs', connection: 'UseDevelopmentStorage=true', targetPerReplica: 1, metricType: 'total', activationThreshold: 3 }],
      combine: 'max',
      pollInterval: undefined,
    });
    expect(config.targets[0]!.cooldown).toBe(300_000);
  });
});
