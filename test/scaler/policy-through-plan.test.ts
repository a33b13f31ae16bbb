/**
 * The wired policy stages through the production path beyond the rows of policy-cases.md
 * (those are policy-cases-*.test.ts): the initial scale once reached, times from the future,
 * the Berlin office-hours floor across DST, and source health over several reconciles.
 */
import { describe, expect, it } from 'vitest';
import { markActive } from '../../src/scaler/read/conditions.js';
import { ACTIVATOR, MINUTE, SECOND, T0, planDriver, push, settingsOf } from './plan-driver.js';

const target = (policy: Record<string, unknown>, targetPerReplica: number) => settingsOf({ ...push(targetPerReplica), minScale: 1, maxScaleDownRate: 1000, ...policy });

describe('Knative knobs through the plan', () => {
  it('once the initial scale has been reached it is no floor any more', async () => {
    const d = planDriver(target({ initialScale: 3, maxScale: 10 }, 1), { current: 3 });
    expect((await d.step({ at: T0, load: 1 })).scale).toBe(1);
  });
});

describe('HPA behavior over many reconciles through the plan', () => {
  it('a 2-minute down window reconciled every 2 s (more decisions than the history keeps) lets go 2 minutes after the load fell', async () => {
    const d = planDriver(target({ maxScale: 10, behavior: { scaleDown: { stabilizationWindow: '2m' } } }, 10), { current: 5 });
    const FELL = 5 * MINUTE;
    let released: number | undefined;
    for (let t = 0; t <= FELL + 4 * MINUTE && released === undefined; t += 2 * SECOND) {
      const out = await d.step({ at: T0 + t, load: t < FELL ? 50 : 10 });
      if (t >= FELL && out.written) released = t - FELL;
    }
    // A recommendation counts while strictly newer than now − window: the last 5 (at FELL − 2 s) leaves at 1:58.
    expect(released).toBe(2 * MINUTE - 2 * SECOND);
  });
});

describe('times from the future through the plan', () => {
  it('an activeSince an hour ahead (a host whose clock ran ahead) holds an idle target for one stable window, not an hour', async () => {
    const d = planDriver(target({ minScale: 0, scaleToZero: { stableWindow: '60s' }, ...ACTIVATOR }, 1), { current: 1, conditions: markActive({}, T0 + 60 * MINUTE) });
    expect((await d.step({ at: T0, load: 0 })).scale).toBe(1);
    expect((await d.step({ at: T0 + 30 * SECOND, load: 0 })).scale).toBe(1);
    expect((await d.step({ at: T0 + 61 * SECOND, load: 0 })).scale).toBe(0);
  });
});

describe('schedules through the plan', () => {
  it('a floor of 5 from 09:00 to 17:00 Europe/Berlin holds on the day of the DST change, and lets go at 17:00 local', async () => {
    const d = planDriver(target({ schedules: [{ cron: '0 9 * * *', duration: '8h', timezone: 'Europe/Berlin', minScale: 5 }], maxScale: 10 }, 10), { current: 1 });
    const at = async (iso: string) => {
      const out = await d.step({ at: Date.parse(iso), load: 10 });
      return { scale: out.scale, boundBy: out.boundBy };
    };
    expect(await at('2026-03-29T06:59:00Z')).toEqual({ scale: 1, boundBy: undefined });
    expect(await at('2026-03-29T07:00:00Z')).toEqual({ scale: 5, boundBy: 'ScheduledFloor' });
    expect((await at('2026-03-29T14:59:00Z')).scale).toBe(5);
    expect((await at('2026-03-29T15:00:00Z')).scale).toBe(1);
  });
});

describe('a schedule floor under HPA behavior through the plan', () => {
  it('a down policy that stops at the scheduled floor names the schedule, not minScale', async () => {
    const settings = target({ schedules: [{ cron: '0 10 * * *', duration: '1h', minScale: 2 }], maxScaleDownRate: 2, behavior: { scaleDown: { stabilizationWindow: '0s' } } }, 10);
    // At 2 ready Knative's rate lets the idle load go to 1; HPA's policy stops at the floor 2.
    const out = await planDriver(settings, { current: 2 }).step({ at: T0, load: 0 });
    expect(out).toMatchObject({ scale: 2, boundBy: 'ScheduledFloor', written: undefined });
  });
});

describe('source health and fallback through the plan', () => {
  const withFallback = (behavior: string) => target({ minScale: 0, scaleToZero: { enabled: false }, maxScale: 20, fallback: { failureThreshold: 3, replicas: 10, behavior } }, 10);
  const failing = (at: number) => ({ at, load: undefined, failed: true });

  it.each([
    ['static, current 5 → the fallback 10', 'static', 5, 10],
    ['currentReplicasIfLower, current 12 → 10: fallback replicas apply downwards too', 'currentReplicasIfLower', 12, 10],
  ])('%s, once the source has failed 4 times in a row against a threshold of 3', async (_name, behavior, current, want) => {
    const d = planDriver(withFallback(behavior), { current });
    // Before the fallback engages, a failing source with no sample gives no decision.
    for (const t of [1, 2, 3]) expect((await d.step(failing(T0 + t * SECOND))).scale).toBeUndefined();
    expect(await d.step(failing(T0 + 4 * SECOND))).toMatchObject({ scale: want, boundBy: 'FallbackActive' });
  });

  it('a read that answers again resets the failures: its metric decides, and the next failure starts the count afresh', async () => {
    const d = planDriver(withFallback('static'), { current: 5 });
    for (const t of [1, 2, 3, 4]) await d.step(failing(T0 + t * SECOND));
    expect(d.current).toBe(10);
    expect((await d.step({ at: T0 + 5 * SECOND, load: 60 })).scale).toBe(6);
    expect((await d.step(failing(T0 + 6 * SECOND))).scale).toBeUndefined();
  });

  it('a failing read blocks scale-down: the window still asks for 2, the target keeps 6', async () => {
    const d = planDriver(target({ maxScale: 20 }, 10), { current: 6 });
    expect(await d.step({ at: T0, load: 20, failed: true })).toMatchObject({ scale: 6, boundBy: 'SourceFailing' });
  });

  it('a failing read does not block scale-up: the window asks for 8, the target goes from 6 to 8', async () => {
    const d = planDriver(target({ maxScale: 20 }, 10), { current: 6 });
    expect((await d.step({ at: T0, load: 80, failed: true })).scale).toBe(8);
  });

  it("with no sample at all and no fallback, today's rule: no decision", async () => {
    const d = planDriver(target({ maxScale: 20 }, 10), { current: 6 });
    expect((await d.step(failing(T0))).scale).toBeUndefined();
  });
});
