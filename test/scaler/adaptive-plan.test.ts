// The adaptive policy through the production scale step (planDriver → runScaleStep → planTarget):
// random traces never leave the bounds and never lower a target while its source fails or no
// sample is known; the start-up delay it learns is in the row, so a new process starts from it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startupDelayIn } from '../../src/scaler/recommend/adaptive-stage.js';
import { markActive } from '../../src/scaler/read/conditions.js';
import { ACTIVATOR, MINUTE, SECOND, T0, planDriver, push, settingsOf } from './plan-driver.js';

const step = fc.record({
  dtMs: fc.integer({ min: 1 * SECOND, max: 5 * MINUTE }),
  load: fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
  failed: fc.boolean(),
  readyShare: fc.constantFrom(0, 0.5, 1),
});

describe('the adaptive policy over random traces', () => {
  it('stays within minScale and maxScale, and lowers nothing while the source fails or no sample is known', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 5, max: 40 }), fc.array(step, { minLength: 1, maxLength: 40 }), async (minScale, maxScale, steps) => {
        const settings = settingsOf({ policy: 'adaptive', minScale, maxScale, scaleToZero: { enabled: false }, ...push(10) });
        const d = planDriver(settings, { current: minScale });
        let now = T0;
        for (const s of steps) {
          now += s.dtMs;
          const before = d.current;
          const out = await d.step({ at: now, load: s.load, failed: s.failed, ready: Math.floor(before * s.readyShare) });
          expect(d.current).toBeGreaterThanOrEqual(minScale);
          expect(d.current).toBeLessThanOrEqual(maxScale);
          if (s.failed || s.load === undefined) expect(out.written === undefined || out.written[1] > out.written[0]).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('StartupDelay through the plan', () => {
  it('three raises ready 4 minutes after their write teach 4 minutes, kept in the row a new process reads', async () => {
    const settings = settingsOf({ policy: 'adaptive', minScale: 1, maxScale: 100, scaleToZero: { enabled: false }, ...push(10) });
    const adaptive = settings.policy!.adaptive!;
    expect(startupDelayIn(undefined, adaptive)).toEqual({ ms: 30 * SECOND, from: 'default' });
    const d = planDriver(settings, { current: 1 });
    let now = T0;
    for (const load of [50, 150, 300]) {
      now += 10 * MINUTE;
      const raised = await d.step({ at: now, load, ready: d.current });
      expect(raised.written![1]).toBeGreaterThan(raised.written![0]);
      // Not ready yet a minute later; all ready four minutes after the write.
      await d.step({ at: now + MINUTE, load, ready: raised.written![0] });
      await d.step({ at: now + 4 * MINUTE, load, ready: d.current });
      now += 4 * MINUTE;
    }
    // Another process starts from the stored row only.
    const stored = JSON.parse(JSON.stringify(d.record));
    expect(startupDelayIn(stored, adaptive)).toEqual({ ms: 4 * MINUTE, from: 'learned' });
  });

  it('raises a warm buffer serves wholly are not learned: three starts in 1 minute leave the default, three creations in 4 minutes are learned', async () => {
    const settings = settingsOf({ policy: 'adaptive', minScale: 1, maxScale: 100, scaleToZero: { enabled: false }, ...push(10) });
    const adaptive = settings.policy!.adaptive!;
    const d = planDriver(settings, { current: 1 });
    let now = T0;
    /** A raise to the load's count with `startable` deallocated VMs beside it, ready `readyAfter` later. */
    const raise = async (load: number, startable: number, readyAfter: number) => {
      now += 10 * MINUTE;
      const raised = await d.step({ at: now, load, ready: d.current, startable });
      expect(raised.written![1]).toBeGreaterThan(raised.written![0]);
      await d.step({ at: now + readyAfter, load, ready: d.current, startable: Math.max(0, startable - (raised.written![1] - raised.written![0])) });
      now += readyAfter;
    };
    // 1 → 5, 5 → 15, 15 → 30: each within what the buffer holds (at least the raise's size).
    for (const [load, startable] of [[50, 4], [150, 10], [300, 15]] as const) await raise(load, startable, MINUTE);
    expect(startupDelayIn(JSON.parse(JSON.stringify(d.record)), adaptive)).toEqual({ ms: 30 * SECOND, from: 'default' });
    // Two raises past the buffer (one VM parked, more wanted) take a creation's 4 minutes; a third as well.
    for (const [load, startable] of [[450, 1], [600, 0], [750, 2]] as const) await raise(load, startable, 4 * MINUTE);
    expect(startupDelayIn(JSON.parse(JSON.stringify(d.record)), adaptive)).toEqual({ ms: 4 * MINUTE, from: 'learned' });
  });

  it('policy knative keeps none of the adaptive fields', async () => {
    const d = planDriver(settingsOf({ policy: 'knative', minScale: 1, maxScale: 100, ...push(10) }), { current: 1 });
    await d.step({ at: T0 + MINUTE, load: 50 });
    expect(d.record).not.toHaveProperty('loadMinutes');
    expect(d.record).not.toHaveProperty('startupDelay');
  });
});

describe('the default policy through the plan', () => {
  const adaptive = (extra: Record<string, unknown>) => settingsOf({ policy: 'adaptive', scaleToZero: { enabled: false }, minScale: 1, maxScale: 100, ...push(10), ...extra });

  it('a target taken over does not fall before it has the evidence window a young target takes (the shorter: 8 × 30 s for pods)', async () => {
    const d = planDriver(adaptive({}), { current: 8 });
    // Load for 1 replica from the first minute on. No headroom calibrated yet, so no replay to weigh
    // the windows by: of 8 and 4 minutes, the shorter. Held at 8 until 4 minutes of recommendations are known.
    for (let m = 0; m < 4; m++) {
      const held = await d.step({ at: T0 + m * MINUTE, load: 10, ready: d.current });
      expect(held.scale).toBe(8);
      // The decision log's line names the rule that held it.
      expect(held.outcome.decision).toMatchObject({ boundBy: 'ScaleDownEvidence', reason: expect.stringContaining('bound by ScaleDownEvidence') });
    }
    // Then down, at most halving a step (maxScaleDownRate's default of 2 applies on top).
    const out = await d.step({ at: T0 + 4 * MINUTE, load: 10, ready: d.current });
    expect(out).toMatchObject({ scale: 4, boundBy: 'ScaleDownLimit' });
    expect((await d.step({ at: T0 + 5 * MINUTE, load: 10, ready: d.current })).scale).toBe(2);
    expect(JSON.parse(d.record!.loadMinutes!).h[3]).toBe(4);
  });

  it('a one-minute burst raises pods at once and goes the next minute: the minute’s own load is a floor, not held', async () => {
    const d = planDriver(adaptive({}), { current: 1 });
    for (let m = 0; m < 10; m++) await d.step({ at: T0 + m * MINUTE, load: 10, ready: d.current });
    expect((await d.step({ at: T0 + 10 * MINUTE, load: 55, ready: d.current })).scale).toBe(6);
    // A young target's level is the mean of its last two start-up delays' minutes (65 ÷ 2): 4 replicas.
    // The burst's own minute recommended 4 as well (the floor of 6 is not a recommendation), so the
    // evidence window's highest is 4 and the scale falls to it.
    expect((await d.step({ at: T0 + 11 * MINUTE, load: 10, ready: d.current })).scale).toBe(4);
  });

  it('a young target follows the load of its last two start-up delays, without waiting on a long mean', async () => {
    const d = planDriver(adaptive({}), { current: 1 });
    for (let m = 0; m < 30; m++) await d.step({ at: T0 + m * MINUTE, load: 10, ready: d.current });
    // Minute 30: 50 → the floor raises to 5 at once; minute 31: 50 again → the level (50 + 50) ÷ 2 asks for 5 itself.
    expect((await d.step({ at: T0 + 30 * MINUTE, load: 50, ready: d.current })).scale).toBe(5);
    const held = await d.step({ at: T0 + 31 * MINUTE, load: 50, ready: d.current });
    expect(held).toMatchObject({ scale: 5, boundBy: undefined });
    expect(JSON.parse(d.record!.loadMinutes!).u.at(-1)).toBe(5);
  });

  it('once calibrated, a fall waits for the evidence window calibrated with the headroom: the longest on a steady load, two thirds of it once the load has fallen', async () => {
    const d = planDriver(adaptive({}), { current: 5 });
    const windowNow = () => JSON.parse(d.record!.loadMinutes!).h[3] as number;
    // Young, the target takes half the longest window (4 minutes of 8). From minute
    // 121 the history holds the calibration window (120 minutes and the start-up delay before
    // them): the level is the 20-minute mean, and the windows are weighed again each quarter hour
    // (T0 is on one): at minute 135 the steady load's replay holds the same with either, so the
    // longest (16 × 30 s = 8 minutes) is kept, fewer actions.
    const steadyWindows: number[] = [];
    for (let m = 0; m < 137; m++) {
      await d.step({ at: T0 + m * MINUTE, load: 50, ready: d.current });
      steadyWindows.push(windowNow());
    }
    expect(d.current).toBe(5);
    expect(steadyWindows).toEqual([...Array<number>(135).fill(4), 8, 8]);
    // From minute 137 the load is 10: j minutes on, the level is 48 − 2j, recommending 5 (j ≤ 3),
    // 4 (j 4–8), 3 (j 9–13), 2 (j 14–18), 1 after. Every window serves this load alike (no
    // headroom); with the longest window kept, the scale falls at j = 12, when [j − 8, j] is all
    // below 5, to the highest of the fall-to window [j − 3, j]: 3. At j = 13 (minute 150, the next
    // quarter hour) the whole minutes so far would have fallen to 4 at j = 10 with two thirds of
    // the window (6 minutes), holding less (4, 4, 4 against 5, 5, 3 over j = 10–12), so 6 minutes
    // it is: 2 at j = 20 ([14, 20] below 3), 1 at j = 25 (the longest window would have waited
    // until 22 and 27).
    const scales: number[] = [];
    const windows: number[] = [];
    for (let j = 0; j <= 27; j++) {
      await d.step({ at: T0 + (137 + j) * MINUTE, load: 10, ready: d.current });
      scales.push(d.current);
      windows.push(windowNow());
    }
    expect(windows).toEqual([...Array<number>(13).fill(8), ...Array<number>(15).fill(6)]);
    expect(scales).toEqual([...Array<number>(12).fill(5), ...Array<number>(8).fill(3), ...Array<number>(5).fill(2), ...Array<number>(3).fill(1)]);
  });

  it('the budget a calibration aims at follows the demand: the same two hours need less headroom when they are busier than the target’s day', async () => {
    // Two targets see the same last two hours: load 50 with a spike to 75 every 15th minute
    // (5 replicas, 8 at the spike). Before them, 10 hours of steady load served in full (the
    // same saving of budget): 50 for one, 20 for the other. For the first the two hours are a
    // day's usual demand; for the second more than its day's, so it may leave more of them unserved.
    const run = async (before: number) => {
      const d = planDriver(adaptive({}), { current: 5 });
      for (let m = 0; m < 600; m++) await d.step({ at: T0 + m * MINUTE, load: before, ready: d.current });
      for (let m = 600; m < 725; m++) await d.step({ at: T0 + m * MINUTE, load: m % 15 === 0 ? 75 : 50, ready: d.current });
      return JSON.parse(d.record!.loadMinutes!) as { h: number[]; b: number[] };
    };
    const usual = await run(50);
    const quiet = await run(20);
    // The day's mean demand kept in the row (replicas a minute): about 5 for the first, under 3 for the second.
    expect(usual.b[2]).toBeGreaterThan(4.9);
    expect(quiet.b[2]).toBeLessThan(3);
    expect(usual.b[3]).toBe(724);
    expect(usual.h[2]).toBeGreaterThan(0);
    expect(quiet.h[2]).toBeLessThan(usual.h[2]!);
  });

  it('a target that may sleep goes to zero by the scale-to-zero rules, not held by the policy', async () => {
    const settings = settingsOf({ policy: 'adaptive', ...push(1), ...ACTIVATOR, minScale: 0, maxScale: 10, scaleToZero: { stableWindow: '60s' } });
    const d = planDriver(settings, { current: 1, conditions: markActive({}, T0 + 60 * MINUTE) });
    expect((await d.step({ at: T0, load: 0 })).scale).toBe(1);
    expect((await d.step({ at: T0 + 61 * SECOND, load: 0 })).scale).toBe(0);
  });

  it('keeps each minute’s load to six significant digits; a lower load later in the minute changes nothing of it', async () => {
    const d = planDriver(adaptive({}), { current: 1 });
    await d.step({ at: T0, load: 12.345_678_9, ready: 1 });
    await d.step({ at: T0 + SECOND, load: 12.345_678_9, ready: 1 });
    const text = d.record?.loadMinutes;
    expect(JSON.parse(text!).v).toEqual([12.3457]);
    // The same minute, a lower load: nothing of it changes, the field is the same text.
    await d.step({ at: T0 + 2 * SECOND, load: 3, ready: 1 });
    expect(d.record?.loadMinutes).toBe(text);
  });

  it('an explicit maxScaleUpRate bounds its raises, named ScaleUpLimit', async () => {
    const d = planDriver(adaptive({ maxScaleUpRate: 2 }), { current: 2 });
    const out = await d.step({ at: T0, load: 200, ready: 2 });
    expect(out.scale).toBe(4);
    expect(out.boundBy).toBe('ScaleUpLimit');
  });
});
