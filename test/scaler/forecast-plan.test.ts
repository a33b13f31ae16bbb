// The forecast through the production scale step (planDriver → runScaleStep → planTarget): a rise
// seen a day ago raises a pod target ahead of it under `floor`, named ForecastFloor, within the
// rate limits and maxScale; `observe` decides and writes what `off` does but for the season, and
// says in the decision what the floor would have done; `off` keeps no season.
import { describe, expect, it } from 'vitest';
import type { TargetRecord } from '../../src/scaler/read/target-record.js';
import { seasonIn, seasonText } from '../../src/scaler/recommend/forecast-stage.js';
import { MINUTE, SECOND, T0, planDriver, push, settingsOf, type PlanDriver } from './plan-driver.js';

/** T0's bucket of 5 minutes, and the one a day before it. */
const BUCKET = T0 / (5 * MINUTE);
const DAY_AGO = BUCKET - 288;

/**
 * A day ago: 10 up to the bucket of T0 less a day, then 100. A pod target (ready in 30 s: the
 * ⌈0.5 ÷ 5⌉ + 1 = 2 buckets ahead) sees the rise from 5 minutes before T0: half of it, (10 + 100)
 * ÷ 2 − 10 = 45; from T0 all of it, 90.
 */
const YESTERDAY = seasonText({ start: DAY_AGO - 12, values: [...Array<number>(13).fill(10), ...Array<number>(12).fill(100)] });

const settings = (mode: string, extra: Record<string, unknown> = {}) =>
  settingsOf({ policy: 'adaptive', forecast: { mode }, minScale: 1, maxScale: 100, scaleToZero: { enabled: false }, ...push(10), ...extra });

const withoutSeason = (record: TargetRecord | undefined) => {
  const { loadSeason: _season, ...rest } = record ?? {};
  return rest;
};

describe('forecast: floor', () => {
  it('a rise seen a day ago raises ahead of it to the forecast floor, named ForecastFloor, and the decision says so', async () => {
    const d = planDriver(settings('floor'), { current: 1, record: { loadSeason: YESTERDAY } });
    // Ten minutes before, the buckets a day ago ahead of it were flat: the floor is the recommendation, 1.
    const before = await d.step({ at: T0 - 10 * MINUTE, load: 10 });
    expect(before).toMatchObject({ scale: 1, boundBy: undefined });
    expect(before.outcome.decision.forecast).toEqual({ mode: 'floor', floor: 1, wouldRaise: false });
    // Then the rise of 90 is ahead: ⌈(10 + 90) ÷ 10⌉ = 10, where the load alone asks for 1.
    const out = await d.step({ at: T0, load: 10 });
    expect(out).toMatchObject({ scale: 10, boundBy: 'ForecastFloor', written: [1, 10] });
    expect(out.outcome.decision).toMatchObject({ boundBy: 'ForecastFloor', forecast: { mode: 'floor', floor: 10, wouldRaise: true } });
    expect(out.outcome.decision.reason).toContain('forecast floor 10');
    // The line people read names the rule as the record does.
    expect(out.outcome.decision.reason).toContain('bound by ForecastFloor');
  });

  it('a floor the load did not follow is held as a recommendation is: a fall waits for 4 minutes of lower ones (a young pod target’s window), a step at a time as the floor falls', async () => {
    const d = planDriver(settings('floor'), { current: 1, record: { loadSeason: YESTERDAY } });
    const seen: { floor: number | undefined; scale: number | undefined; rule: string | undefined }[] = [];
    for (let m = 0; m <= 18; m++) {
      const out = await d.step({ at: T0 + m * MINUTE, load: 10 });
      seen.push({ floor: out.outcome.decision.forecast?.floor, scale: out.scale, rule: out.boundBy });
    }
    const [floors, scales, rules] = [seen.map((s) => s.floor), seen.map((s) => s.scale), seen.map((s) => s.rule)];
    // The level then catches up with the 100s a bucket at a time, as a level does: (10 + 10 + 10 +
    // 100) ÷ 4 = 32.5 from T0 + 5 min, then 55 and 77.5; the rise, 90, 67.5, 45, 22.5 over the 10 now.
    expect(floors).toEqual([10, 10, 10, 10, 10, 8, 8, 8, 8, 8, 6, 6, 6, 6, 6, 4, 4, 4, 4]);
    // A young target's evidence window is the shorter of 8 and 4 minutes. Held at 10 while a 10 is
    // among the 4 minutes before; at T0 + 9 min they are all 8s: down to the last 3 minutes'
    // highest, 8, held while an 8 is in the window; at T0 + 14 min down to 6 the same way. (The
    // floor steps every 5 minutes, longer than the window, so the fall-to window's highest is the
    // floor of the moment here; the rule tables tell the two windows apart.)
    expect(scales).toEqual([...Array<number>(9).fill(10), ...Array<number>(5).fill(8), ...Array<number>(5).fill(6)]);
    expect(rules).toEqual(['ForecastFloor', ...Array<string>(18).fill('ScaleDownEvidence')]);
  });

  it.each([
    { name: 'maxScaleUpRate 2 holds the raise at twice the ready count, named ScaleUpLimit', extra: { maxScaleUpRate: 2 }, want: { scale: 2, boundBy: 'ScaleUpLimit' } },
    { name: 'maxScale 4 holds it at 4, named TooManyReplicas', extra: { maxScale: 4 }, want: { scale: 4, boundBy: 'TooManyReplicas' } },
  ])('$name', async ({ extra, want }) => {
    const d = planDriver(settings('floor', extra), { current: 1, record: { loadSeason: YESTERDAY } });
    expect(await d.step({ at: T0, load: 10 })).toMatchObject(want);
  });

  it('no load sample: no forecast, no raise (no evidence is never turned into a scale)', async () => {
    const d = planDriver(settings('floor'), { current: 3, record: { loadSeason: YESTERDAY } });
    const out = await d.step({ at: T0, load: undefined });
    expect(d.current).toBe(3);
    expect(out.outcome.decision.forecast).toBeUndefined();
    expect(d.record?.loadSeason).toBe(YESTERDAY);
  });
});

describe('forecast: floor keeps to the budget: its headroom is calibrated with the forecast', () => {
  it('a step seen a day ago and again today asks for less headroom under floor than under observe (calibrated without it)', async () => {
    // Yesterday and today: 10, then 100 from the bucket of T0 (yesterday's less a day); a budget of 0.1 %.
    const yesterday = seasonText({ start: DAY_AGO - 30, values: [...Array<number>(30).fill(10), ...Array<number>(6).fill(100)] });
    const extra = { headroom: { underProvisioning: 0.1 } };
    const floor = planDriver(settings('floor', extra), { current: 1, record: { loadSeason: yesterday } });
    const observe = planDriver(settings('observe', extra), { current: 1, record: { loadSeason: yesterday } });
    for (let m = -130; m <= 12; m++) {
      for (const d of [floor, observe]) await d.step({ at: T0 + m * MINUTE, load: m < 0 ? 10 : 100 });
    }
    const headroomOf = (d: PlanDriver) => (JSON.parse(d.record!.loadMinutes!) as { h: [number, number, number] }).h[2];
    expect(headroomOf(observe)).toBeGreaterThan(0);
    expect(headroomOf(floor)).toBeLessThan(headroomOf(observe));
  });
});

describe('forecast: observe against off', () => {
  /** Every 30 s from T0 − 12 min to T0 + 8 min, the load rising at T0 + 2 min. */
  const steps = Array.from({ length: 41 }, (_, i) => ({ at: T0 - 12 * MINUTE + i * 30 * SECOND, load: i < 28 ? 10 : 60 }));

  it('decides the same counts and writes the same row but for the season; its decisions say what the floor would have done', async () => {
    const off = planDriver(settings('off'), { current: 1, record: { loadSeason: YESTERDAY } });
    const observe = planDriver(settings('observe'), { current: 1, record: { loadSeason: YESTERDAY } });
    const notes: unknown[] = [];
    for (const step of steps) {
      const [a, b] = [await off.step(step), await observe.step(step)];
      expect(b.scale).toBe(a.scale);
      expect(b.boundBy).toBe(a.boundBy);
      expect(withoutSeason(observe.record)).toEqual(withoutSeason(off.record));
      expect(a.outcome.decision.forecast).toBeUndefined();
      if (step.at === T0) expect(b.outcome.decision.reason).toContain('forecast floor 10 not applied (forecast: observe)');
      notes.push(b.outcome.decision.forecast);
    }
    expect(notes).toContainEqual({ mode: 'observe', floor: 10, wouldRaise: true });
    // off neither read nor wrote the season; observe folded the buckets it saw into it.
    expect(off.record?.loadSeason).toBe(YESTERDAY);
    const season = seasonIn(observe.record);
    expect(season.start).toBe(DAY_AGO - 12);
    expect(season.start + season.values.length).toBe(BUCKET + 1);
    // T0 − 10 … T0 − 1 min at 10; the bucket of T0 holds 10, 10, 60, 60, 60 (from T0 + 2 min): 40.
    expect(season.values.slice(-3)).toEqual([10, 10, 40]);
  });

  it('off keeps no season in a row that had none', async () => {
    const d = planDriver(settings('off'), { current: 1 });
    for (const step of steps) await d.step(step);
    expect(d.record).toHaveProperty('loadMinutes');
    expect(d.record).not.toHaveProperty('loadSeason');
  });
});
