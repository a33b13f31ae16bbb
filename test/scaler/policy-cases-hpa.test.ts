/**
 * policy-cases.md, HPA cases (K1–K4), every row through the production scale step (planTarget,
 * the executor, the settle step) with the policy configured as a user writes it and the
 * history the row starts from stored in the targets row.
 *
 * Test settings, as the brief allows: HPA's test-only scale-up factor 8 and its 5-minute
 * default down window are written as the `behavior` they amount to (LEGACY). Knative's rates
 * are opened (maxScaleDownRate 1000) so that only HPA's rules bind.
 *
 * CPU rows become load: HPA's usage ratio is load ÷ (target × current), so at one unit per
 * replica a row's computed utilization is the load itself (3 pods at 102 % of their request are
 * a load of 3.06). A row that starts from "no stored recommendations" stores an empty history;
 * one that starts from none at all ("the first reconcile") stores nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Recommendation, ScaleEvent } from '../../src/scaler/limit/hpa-history.js';
import { ACTIVATOR, MINUTE, SECOND, T0, inactiveFor, planDriver, planOnce, push, settingsOf } from './plan-driver.js';

const NOW = T0;
const recs = (...entries: [value: number, agoS: number][]): Recommendation[] => entries.map(([v, ago]) => ({ at: NOW - ago * SECOND, low: v, high: v }));
const events = (...entries: [change: number, agoS: number][]): ScaleEvent[] => entries.map(([change, ago]) => ({ at: NOW - ago * SECOND, change }));

/** The behavior history a row starts from, as the targets row holds it. */
const history = (h: { recs?: Recommendation[] | 'none'; up?: ScaleEvent[]; down?: ScaleEvent[] }) => ({
  behaviorHistory: JSON.stringify({ ...(h.recs === 'none' ? {} : { recommendations: h.recs ?? [] }), upEvents: h.up ?? [], downEvents: h.down ?? [] }),
});
const storedOf = (record: { behaviorHistory?: string }) => JSON.parse(record.behaviorHistory ?? '{}') as { recommendations?: Recommendation[]; upEvents: ScaleEvent[]; downEvents: ScaleEvent[] };

/** HPA without `behavior`: up to max(8 × current, 4) per decision (test factor 8), down unlimited but stabilized 5 min, tolerance 0.1. */
const LEGACY = {
  scaleUp: { policies: [{ type: 'Percent', value: 700, period: '1s' }, { type: 'Pods', value: 4, period: '1s' }] },
  scaleDown: { stabilizationWindow: '5m', policies: [{ type: 'Percent', value: 100, period: '1s' }] },
};
const OPEN_RATES = { maxScaleDownRate: 1000 };
const windows = (upS: number, downS: number) => ({ scaleUp: { stabilizationWindow: `${upS}s` }, scaleDown: { stabilizationWindow: `${downS}s` } });

describe('HPA stabilization (TestNormalizeDesiredReplicasWithBehavior), through the plan', () => {
  const rows: { name: string; current: number; raw: number; recs: Recommendation[]; upS: number; downS: number; want: number; stored?: number[] }[] = [
    { name: '#1 with no stored recommendations and no windows, the raw 5 stands and is stored', current: 100, raw: 5, recs: [], upS: 0, downS: 0, want: 5, stored: [5] },
    { name: '#2 a 180 s down window holds the highest recent recommendation, 5', current: 100, raw: 3, recs: recs([4, 120], [5, 60]), upS: 0, downS: 180, want: 5, stored: [4, 5, 3] },
    { name: '#3 without a down window the raw 3 stands, whatever the up window holds', current: 100, raw: 3, recs: recs([1, 120], [2, 60]), upS: 300, downS: 0, want: 3, stored: [1, 2, 3] },
    { name: '#4 the last entry older than both windows is overwritten', current: 100, raw: 3, recs: recs([10, 600], [9, 540]), upS: 0, downS: 0, want: 3, stored: [10, 3] },
    { name: '#5 a 300 s up window holds the lowest recent recommendation, 5, and an obsolete entry is reused', current: 1, raw: 100, recs: recs([10, 6000], [6, 60], [5, 120], [9, 180]), upS: 300, downS: 0, want: 5, stored: [100, 6, 5, 9] },
    { name: '#6 the current 2 clamped into [1, 3] stays 2: no scale up when the raw goes down', current: 2, raw: 1, recs: recs([2, 6000], [3, 180]), upS: 300, downS: 300, want: 2 },
  ];
  it.each(rows)('$name', async (row) => {
    const settings = settingsOf({ ...push(1), ...OPEN_RATES, minScale: 1, behavior: windows(row.upS, row.downS) });
    const out = await planOnce(settings, { current: row.current, record: history({ recs: row.recs }) }, { at: NOW, load: row.raw });
    expect(out.scale).toBe(row.want);
    expect(out.written).toEqual(row.want === row.current ? undefined : [row.current, row.want]);
    if (row.stored) expect(storedOf(out.record).recommendations!.map((r) => r.high)).toEqual(row.stored);
  });
});

interface BehaviorRow {
  name: string;
  current: number;
  /** The load at one unit per replica: the raw recommendation is its ceiling, HPA's ratio is it ÷ current. */
  load: number;
  min: number;
  max: number;
  behavior: Record<string, unknown>;
  recs?: Recommendation[] | 'none';
  up?: ScaleEvent[];
  down?: ScaleEvent[];
  want: number;
  /** The rule the plan names; undefined where HPA's reason is DesiredWithinRange or ReadyForNewScale. */
  boundBy: string | undefined;
}

describe('HPA behavior: stabilization, then rate policies, with tolerance, through the plan', () => {
  const rows: BehaviorRow[] = [
    { name: '#7 without behavior a 5-minute window holds 4 over the raw 2: ScaleDownStabilized, no update', current: 4, load: 2, min: 1, max: 5, behavior: LEGACY, recs: recs([10, 600], [4, 60]), want: 4, boundBy: 'ScaleDownStabilized' },
    { name: '#8 the first reconcile seeds the history with the current 5, which holds over the raw ⌈2.8⌉ = 3', current: 5, load: 2.8, min: 2, max: 6, behavior: LEGACY, recs: 'none', want: 5, boundBy: 'ScaleDownStabilized' },
    { name: '#9 a 1 %/60 s up policy limits 1000 to ⌈3.03⌉ = 4', current: 3, load: 1000, min: 1, max: 2000, behavior: { scaleUp: { policies: [{ type: 'Percent', value: 1, period: '60s' }] } }, want: 4, boundBy: 'ScaleUpLimit' },
    { name: '#10 of Pods 20 and Percent 1 % down, Max takes the larger change: 80', current: 100, load: 2, min: 1, max: 1000, behavior: { scaleDown: { stabilizationWindow: '300s', policies: [{ type: 'Pods', value: 20, period: '60s' }, { type: 'Percent', value: 1, period: '60s' }] } }, want: 80, boundBy: 'ScaleDownLimit' },
    { name: '#11 15 replicas added in the last 120 s leave Pods 5 at 90 < current, so current 100', current: 100, load: 500, min: 1, max: 1000, behavior: { scaleUp: { policies: [{ type: 'Pods', value: 5, period: '120s' }] } }, up: events([1, 100], [5, 60], [9, 20]), want: 100, boundBy: 'ScaleUpLimit' },
    { name: '#12 Percent 200 % from the period start 85 allows ⌈255⌉', current: 100, load: 500, min: 1, max: 1000, behavior: { scaleUp: { policies: [{ type: 'Percent', value: 200, period: '120s' }] } }, up: events([1, 100], [5, 60], [9, 20]), want: 255, boundBy: 'ScaleUpLimit' },
    { name: '#13 Percent 50 % down from the period start 112 allows trunc(56)', current: 100, load: 0, min: 1, max: 1000, behavior: { scaleDown: { stabilizationWindow: '300s', policies: [{ type: 'Percent', value: 50, period: '120s' }] } }, down: events([2, 100], [4, 60], [6, 20]), want: 56, boundBy: 'ScaleDownLimit' },
    { name: '#14 up and down events both move the period start: 10 − 2 + 4 = 12, halved to 6', current: 10, load: 1, min: 1, max: 1000, behavior: { scaleDown: { stabilizationWindow: '0s', policies: [{ type: 'Percent', value: 50, period: '180s' }] } }, up: events([2, 60]), down: events([4, 60]), want: 6, boundBy: 'ScaleDownLimit' },
    { name: '#15 a limit of −360 is below min and raw: the raw 5 is within range', current: 10, load: 5, min: 1, max: 1000, behavior: { scaleDown: { stabilizationWindow: '300s', policies: [{ type: 'Percent', value: 1000, period: '120s' }] } }, down: events([10, 100], [10, 60], [10, 20]), want: 5, boundBy: undefined },
    { name: '#16 with select Min, Pods 2 and Percent 50 % from 1 allow min(3, ⌈1.5⌉) = 2', current: 1, load: 10, min: 1, max: 100, behavior: { scaleUp: { stabilizationWindow: '300s', selectPolicy: 'Min', policies: [{ type: 'Pods', value: 2, period: '60s' }, { type: 'Percent', value: 50, period: '60s' }] } }, want: 2, boundBy: 'ScaleUpLimit' },
    { name: '#22 a desired 1 below min 2 is raised to it', current: 3, load: 1, min: 2, max: 8, behavior: LEGACY, want: 2, boundBy: 'TooFewReplicas' },
    { name: '#23 without behavior the up limit is max(8 × 3, 4) = 24 under the test factor', current: 3, load: 1000, min: 1, max: 2000, behavior: LEGACY, want: 24, boundBy: 'ScaleUpLimit' },
    { name: '#24 an up limit of 24 above max 20 gives 20', current: 3, load: 60, min: 1, max: 20, behavior: { scaleUp: { stabilizationWindow: '0s', policies: [{ type: 'Percent', value: 700, period: '60s' }] } }, want: 20, boundBy: 'TooManyReplicas' },
    { name: '#25 a usage ratio of 1.02 is within the tolerance 0.1: 3 stays, no update', current: 3, load: 3.06, min: 1, max: 5, behavior: LEGACY, recs: 'none', want: 3, boundBy: undefined },
    { name: '#27 a ratio of 50/55 = 0.909 lies inside [0.9, 1.1]: 10 stays', current: 10, load: 10 * (50 / 55), min: 1, max: 1000, behavior: LEGACY, recs: 'none', want: 10, boundBy: undefined },
  ];
  it.each(rows)('$name', async (row) => {
    const settings = settingsOf({ ...push(1), ...OPEN_RATES, minScale: row.min, maxScale: row.max, behavior: row.behavior });
    const out = await planOnce(settings, { current: row.current, record: history({ recs: row.recs ?? [], up: row.up ?? [], down: row.down ?? [] }) }, { at: NOW, load: row.load });
    expect({ scale: out.scale, boundBy: out.boundBy }).toEqual({ scale: row.want, boundBy: row.boundBy });
    expect(out.written).toEqual(row.want === row.current ? undefined : [row.current, row.want]);
  });

  it('#26 from zero the ratio 1.0 ignores tolerance: desired ⌈1.0⌉ = 1, and the target wakes 0 → 1', async () => {
    const settings = settingsOf({ ...push(1), ...OPEN_RATES, ...ACTIVATOR, minScale: 0, maxScale: 6, behavior: LEGACY });
    const out = await planOnce(settings, { current: 0, conditions: inactiveFor(10 * MINUTE) }, { at: NOW, load: 1 });
    expect([out.scale, out.written]).toEqual([1, [0, 1]]);
  });
});

describe('HPA scale events and defaults, through the plan', () => {
  const rules = { policies: [{ type: 'Pods', value: 10, period: '60s' }, { type: 'Percent', value: 100, period: '30s' }] };
  const stored = events([8, 29], [6, 59], [7, 61], [9, 61]);

  it('#19 a write of 10 → 15 stores the change 5 over the last event older than the longest period (the 9)', async () => {
    // minScale 15 makes the write (the bounds come after behavior): the settle step stores whatever was written.
    const settings = settingsOf({ ...push(1), ...OPEN_RATES, minScale: 15, behavior: { scaleUp: rules } });
    const out = await planOnce(settings, { current: 10, record: history({ up: stored }) }, { at: NOW, load: 15 });
    expect(out.written).toEqual([10, 15]);
    expect(storedOf(out.record).upEvents.map((e) => e.change)).toEqual([8, 6, 7, 5]);
  });

  it('#19 the same for a write of 10 → 5 and the down events', async () => {
    const settings = settingsOf({ ...push(1), ...OPEN_RATES, minScale: 1, maxScale: 5, behavior: { scaleDown: { ...rules, stabilizationWindow: '0s' } } });
    const out = await planOnce(settings, { current: 10, record: history({ down: stored }) }, { at: NOW, load: 5 });
    expect(out.written).toEqual([10, 5]);
    expect(storedOf(out.record).downEvents.map((e) => e.change)).toEqual([8, 6, 7, 5]);
  });

  it('#20 a direction given without policies, window or select gets [Pods 4/15s, Percent 100%/15s], window 0, Max', () => {
    expect(settingsOf({ minScale: 1, behavior: { scaleUp: {} } }).policy!.behavior.scaleUp).toEqual({
      stabilizationWindowMs: 0,
      policies: [{ type: 'Pods', value: 4, periodMs: 15 * SECOND }, { type: 'Percent', value: 100, periodMs: 15 * SECOND }],
      selectPolicy: 'Max',
      tolerance: 0.1,
    });
  });

  it('#21 a Pods 4/2s policy and a 25 s window replace the defaults; select stays Max', () => {
    expect(settingsOf({ minScale: 1, behavior: { scaleUp: { policies: [{ type: 'Pods', value: 4, period: '2s' }], stabilizationWindow: '25s' } } }).policy!.behavior.scaleUp).toEqual({
      stabilizationWindowMs: 25 * SECOND,
      policies: [{ type: 'Pods', value: 4, periodMs: 2 * SECOND }],
      selectPolicy: 'Max',
      tolerance: 0.1,
    });
  });
});

describe('HPA behaviour over several reconciles (e2e and integration rows), through the plan', () => {
  it('#17 with scale up Disabled, load for 8 replicas leaves 1 replica for the whole 210 s', async () => {
    const d = planDriver(settingsOf({ ...push(125), minScale: 1, maxScale: 10, behavior: { scaleUp: { selectPolicy: 'Disabled' } } }), { current: 1 });
    for (let t = 0; t <= 210; t += 15) expect(await d.step({ at: T0 + t * SECOND, load: 938 })).toMatchObject({ scale: 1, boundBy: 'ScaleUpLimit', written: undefined });
  });

  it('#18 Percent 50 %/60 s takes 2 to 3 at once, and to 5 only once the first write is 60 s old', async () => {
    const d = planDriver(settingsOf({ ...push(125), minScale: 1, maxScale: 10, behavior: { scaleUp: { policies: [{ type: 'Percent', value: 50, period: '60s' }] } } }), { current: 2 });
    // An event counts while strictly newer than now − period: at exactly 60 s it no longer does.
    const seen = [];
    for (const t of [0, 15, 30, 45, 59, 60, 75]) seen.push([t, (await d.step({ at: T0 + t * SECOND, load: 1000 })).scale]);
    expect(seen).toEqual([[0, 3], [15, 3], [30, 3], [45, 3], [59, 3], [60, 5], [75, 5]]);
  });

  it('#28 per-direction tolerance: 3700 reaches 37, 3800 never 38, 1000 reaches 10, 800 never 9', async () => {
    const settings = settingsOf({ ...push(100), ...OPEN_RATES, minScale: 1, maxScale: 1000, behavior: { scaleUp: { tolerance: 0.05 }, scaleDown: { tolerance: 0.5, stabilizationWindow: '0s' } } });
    const d = planDriver(settings, { current: 35 });
    const phase = async (from: number, load: number) => {
      const seen = [];
      for (const t of [0, 15, 30]) seen.push((await d.step({ at: T0 + (from + t) * SECOND, load })).scale);
      return seen;
    };
    expect(await phase(0, 3700)).toEqual([37, 37, 37]);
    expect(await phase(60, 3800)).toEqual([37, 37, 37]);
    expect(await phase(120, 1000)).toEqual([10, 10, 10]);
    expect(await phase(180, 800)).toEqual([10, 10, 10]);
  });
});
