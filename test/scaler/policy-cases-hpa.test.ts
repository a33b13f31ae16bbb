/**
 * policy-cases.md, HPA cases (K1–K4), through the behavior stage. HPA's test-only scale-up
 * factor 8 and its 5-minute default down window are test settings here: the controller's
 * behaviour without `spec.behavior` is written as the rules it amounts to (LEGACY).
 *
 * CPU rows become load: HPA's usage ratio is load ÷ (target × current), so a row's computed
 * utilization is given as the unrounded replica demand (`exact`).
 */
import { describe, expect, it } from 'vitest';
import {
  applyBehavior,
  changeWithin,
  recordScaleEvent,
  scaleUpLimit,
  stabilize,
  type BehaviorSettings,
  type BehaviorState,
} from '../../src/scaler/policy/behavior.js';
import type { Recommendation, ScaleEvent } from '../../src/scaler/policy/history.js';
import { MINUTE, SECOND, T0, driver, rules, settingsFrom } from './policy-support.js';

const NOW = T0;
const recs = (...entries: [value: number, agoS: number][]): Recommendation[] => entries.map(([v, ago]) => ({ at: NOW - ago * SECOND, low: v, high: v }));
const events = (...entries: [change: number, agoS: number][]): ScaleEvent[] => entries.map(([change, ago]) => ({ at: NOW - ago * SECOND, change }));
const values = (history: readonly Recommendation[]) => history.map((r) => r.high);
const windows = (upS: number, downS: number): BehaviorSettings => ({ scaleUp: rules({ stabilizationWindowMs: upS * SECOND }), scaleDown: rules({ stabilizationWindowMs: downS * SECOND }) });
const state = (over: Partial<BehaviorState> = {}): BehaviorState => ({ recommendations: [], upEvents: [], downEvents: [], ...over });

/** HPA without `behavior`: up to max(8 × current, 4) per decision (test factor 8), down unlimited but stabilized 5 min, tolerance 0.1. */
const LEGACY: BehaviorSettings = {
  scaleUp: rules({ policies: [{ type: 'Percent', value: 700, periodMs: 1 }, { type: 'Pods', value: 4, periodMs: 1 }], tolerance: 0.1 }),
  scaleDown: rules({ stabilizationWindowMs: 5 * MINUTE, policies: [{ type: 'Percent', value: 100, periodMs: 1 }], tolerance: 0.1 }),
};

describe('HPA stabilization (TestNormalizeDesiredReplicasWithBehavior)', () => {
  const rows: { name: string; current: number; raw: number; history: Recommendation[]; upS: number; downS: number; want: number; stored: number[] }[] = [
    { name: '#1 with no stored recommendations and no windows, the raw 5 stands and is stored', current: 100, raw: 5, history: [], upS: 0, downS: 0, want: 5, stored: [5] },
    { name: '#2 a 180 s down window holds the highest recent recommendation, 5', current: 100, raw: 3, history: recs([4, 120], [5, 60]), upS: 0, downS: 180, want: 5, stored: [4, 5, 3] },
    { name: '#3 without a down window the raw 3 stands, whatever the up window holds', current: 100, raw: 3, history: recs([1, 120], [2, 60]), upS: 300, downS: 0, want: 3, stored: [1, 2, 3] },
    { name: '#4 the last entry older than both windows is overwritten', current: 100, raw: 3, history: recs([10, 600], [9, 540]), upS: 0, downS: 0, want: 3, stored: [10, 3] },
    { name: '#5 a 300 s up window holds the lowest recent recommendation, 5, and an obsolete entry is reused', current: 1, raw: 100, history: recs([10, 6000], [6, 60], [5, 120], [9, 180]), upS: 300, downS: 0, want: 5, stored: [100, 6, 5, 9] },
    { name: '#6 the current 2 clamped into [1, 3] stays 2: no scale up when the raw goes down', current: 2, raw: 1, history: recs([2, 6000], [3, 180]), upS: 300, downS: 300, want: 2, stored: [] },
  ];
  it.each(rows)('$name', (row) => {
    const out = stabilize(row.raw, row.current, windows(row.upS, row.downS), row.history, NOW);
    expect(out.replicas).toBe(row.want);
    if (row.stored.length > 0) expect(values(out.history)).toEqual(row.stored);
  });
});

interface BehaviorRow {
  name: string;
  current: number;
  raw: number;
  exact?: number;
  min: number;
  max: number;
  behavior: BehaviorSettings;
  history?: Recommendation[] | 'none';
  up?: ScaleEvent[];
  down?: ScaleEvent[];
  want: number;
  /** ScalingLimited or AbleToScale reason, as the row names it. */
  reason: string;
}

describe('HPA behavior: stabilization, then rate policies, with tolerance', () => {
  const rows: BehaviorRow[] = [
    { name: '#7 without behavior a 5-minute window holds 4 over the raw 2: ScaleDownStabilized, no update', current: 4, raw: 2, min: 1, max: 5, behavior: LEGACY, history: recs([10, 600], [4, 60]), want: 4, reason: 'ScaleDownStabilized' },
    { name: '#8 the first reconcile seeds the history with the current 5, which holds over the raw 3', current: 5, raw: 3, min: 2, max: 6, behavior: LEGACY, history: 'none', want: 5, reason: 'ScaleDownStabilized' },
    { name: '#9 a 1 %/60 s up policy limits 1000 to ⌈3.03⌉ = 4', current: 3, raw: 1000, min: 1, max: 2000, behavior: { scaleUp: rules({ policies: [{ type: 'Percent', value: 1, periodMs: MINUTE }] }) }, want: 4, reason: 'ScaleUpLimit' },
    { name: '#10 of Pods 20 and Percent 1 % down, Max takes the larger change: 80', current: 100, raw: 2, min: 1, max: 1000, behavior: { scaleDown: rules({ stabilizationWindowMs: 300 * SECOND, policies: [{ type: 'Pods', value: 20, periodMs: MINUTE }, { type: 'Percent', value: 1, periodMs: MINUTE }] }) }, want: 80, reason: 'ScaleDownLimit' },
    { name: '#11 15 replicas added in the last 120 s leave Pods 5 at 90 < current, so current 100', current: 100, raw: 500, min: 1, max: 1000, behavior: { scaleUp: rules({ policies: [{ type: 'Pods', value: 5, periodMs: 120 * SECOND }] }) }, up: events([1, 100], [5, 60], [9, 20]), want: 100, reason: 'ScaleUpLimit' },
    { name: '#12 Percent 200 % from the period start 85 allows ⌈255⌉', current: 100, raw: 500, min: 1, max: 1000, behavior: { scaleUp: rules({ policies: [{ type: 'Percent', value: 200, periodMs: 120 * SECOND }] }) }, up: events([1, 100], [5, 60], [9, 20]), want: 255, reason: 'ScaleUpLimit' },
    { name: '#13 Percent 50 % down from the period start 112 allows trunc(56)', current: 100, raw: 0, min: 1, max: 1000, behavior: { scaleDown: rules({ stabilizationWindowMs: 300 * SECOND, policies: [{ type: 'Percent', value: 50, periodMs: 120 * SECOND }] }) }, down: events([2, 100], [4, 60], [6, 20]), want: 56, reason: 'ScaleDownLimit' },
    { name: '#14 up and down events both move the period start: 10 − 2 + 4 = 12, halved to 6', current: 10, raw: 1, min: 1, max: 1000, behavior: { scaleDown: rules({ policies: [{ type: 'Percent', value: 50, periodMs: 180 * SECOND }] }) }, up: events([2, 60]), down: events([4, 60]), want: 6, reason: 'ScaleDownLimit' },
    { name: '#15 a limit of −360 is below min and raw: the raw 5 is within range', current: 10, raw: 5, min: 1, max: 1000, behavior: { scaleDown: rules({ stabilizationWindowMs: 300 * SECOND, policies: [{ type: 'Percent', value: 1000, periodMs: 120 * SECOND }] }) }, down: events([10, 100], [10, 60], [10, 20]), want: 5, reason: 'DesiredWithinRange' },
    { name: '#22 a desired 1 below min 2 is raised to it', current: 3, raw: 1, min: 2, max: 8, behavior: { scaleDown: rules({ policies: [{ type: 'Percent', value: 100, periodMs: 15 * SECOND }] }) }, want: 2, reason: 'TooFewReplicas' },
    { name: '#23 without behavior the up limit is max(8 × 3, 4) = 24 under the test factor', current: 3, raw: 1000, min: 1, max: 2000, behavior: LEGACY, want: 24, reason: 'ScaleUpLimit' },
    { name: '#24 an up limit of 24 above max 20 gives 20', current: 3, raw: 60, min: 1, max: 20, behavior: { scaleUp: rules({ policies: [{ type: 'Percent', value: 700, periodMs: MINUTE }] }) }, want: 20, reason: 'TooManyReplicas' },
    { name: '#25 a usage ratio of 1.02 is within the tolerance 0.1: 3 stays, ReadyForNewScale', current: 3, raw: 4, exact: 3.06, min: 1, max: 5, behavior: LEGACY, history: 'none', want: 3, reason: 'ReadyForNewScale' },
    { name: '#26 from zero the ratio 1.0 ignores tolerance: desired ⌈1.0⌉ = 1', current: 0, raw: 1, exact: 1, min: 0, max: 6, behavior: LEGACY, history: 'none', want: 1, reason: 'DesiredWithinRange' },
    { name: '#27 a ratio of 50/55 = 0.909 lies inside [0.9, 1.1]: 10 stays', current: 10, raw: 10, exact: 10 * (50 / 55), min: 0, max: 1000, behavior: LEGACY, history: 'none', want: 10, reason: 'ReadyForNewScale' },
  ];
  it.each(rows)('$name', (row) => {
    const history = row.history === 'none' ? undefined : (row.history ?? []);
    const out = applyBehavior({
      raw: row.raw,
      ...(row.exact === undefined ? {} : { exact: row.exact }),
      current: row.current,
      minScale: row.min,
      maxScale: row.max,
      behavior: row.behavior,
      state: { ...(history ? { recommendations: history } : {}), upEvents: row.up ?? [], downEvents: row.down ?? [] },
      now: NOW,
    });
    expect(out.replicas).toBe(row.want);
    expect([out.scalingLimited, out.ableToScale]).toContain(row.reason);
  });

  it('#25 names the tolerance as what held the count', () => {
    const out = applyBehavior({ raw: 4, exact: 3.06, current: 3, minScale: 1, maxScale: 5, behavior: LEGACY, state: state(), now: NOW });
    expect(out.boundBy).toBe('WithinTolerance');
  });
});

describe('HPA rate limits and scale events', () => {
  it('#16 with select Min, Pods 2 and Percent 50 % from 1 allow min(3, ⌈1.5⌉) = 2', () => {
    const limit = scaleUpLimit(1, { upEvents: [], downEvents: [] }, rules({ stabilizationWindowMs: 300 * SECOND, selectPolicy: 'Min', policies: [{ type: 'Pods', value: 2, periodMs: MINUTE }, { type: 'Percent', value: 50, periodMs: MINUTE }] }), NOW);
    expect(limit).toBe(2);
  });

  it('#19 the change in the last 60 s is 14, and storing a change of 5 overwrites the last outdated event (the 9)', () => {
    const stored = events([8, 29], [6, 59], [7, 61], [9, 61]);
    const behavior = { scaleUp: rules({ policies: [{ type: 'Pods', value: 10, periodMs: 60 * SECOND }, { type: 'Percent', value: 100, periodMs: 30 * SECOND }] }) };
    expect(changeWithin(stored, 60 * SECOND, NOW)).toBe(14);
    const after = recordScaleEvent(state({ upEvents: stored }), 10, 15, behavior, NOW);
    expect(after.upEvents.map((e) => e.change)).toEqual([8, 6, 7, 5]);
    const down = recordScaleEvent(state({ downEvents: stored }), 10, 5, { scaleDown: behavior.scaleUp }, NOW);
    expect(down.downEvents.map((e) => e.change)).toEqual([8, 6, 7, 5]);
  });

  it('#20 a direction given without policies, window or select gets [Pods 4/15s, Percent 100%/15s], window 0, Max', () => {
    expect(settingsFrom({ behavior: { scaleUp: {} } }).behavior.scaleUp).toEqual({
      stabilizationWindowMs: 0,
      policies: [{ type: 'Pods', value: 4, periodMs: 15 * SECOND }, { type: 'Percent', value: 100, periodMs: 15 * SECOND }],
      selectPolicy: 'Max',
      tolerance: 0.1,
    });
  });

  it('#21 a Pods 4/2s policy and a 25 s window replace the defaults; select stays Max', () => {
    expect(settingsFrom({ behavior: { scaleUp: { policies: [{ type: 'Pods', value: 4, period: '2s' }], stabilizationWindow: '25s' } } }).behavior.scaleUp).toEqual({
      stabilizationWindowMs: 25 * SECOND,
      policies: [{ type: 'Pods', value: 4, periodMs: 2 * SECOND }],
      selectPolicy: 'Max',
      tolerance: 0.1,
    });
  });
});

describe('HPA behaviour over several decisions (e2e and integration rows)', () => {
  const queue = (target: number) => ({ load: { source: 'queue', queueName: 'q', accountName: 'acct', targetPerReplica: target } });
  const decider = { stableWindowMs: MINUTE, maxScaleUpRate: 1000, maxScaleDownRate: 1000, panic: { enabled: false, windowMs: 6 * SECOND, thresholdPercent: 200 } };

  it('#17 with scale up Disabled, load for 8 replicas leaves 1 replica for the whole 210 s', () => {
    const settings = settingsFrom({ ...queue(125), behavior: { scaleUp: { selectPolicy: 'Disabled' } } });
    const d = driver(settings, { decider, minScale: 1, maxScale: 10, since: T0 - MINUTE }, 1);
    for (let t = 0; t <= 210; t += 15) expect(d.run({ at: T0 + t * SECOND, values: { load: 938 } }).desired).toBe(1);
  });

  it('#18 Percent 50 %/60 s takes 2 to 3 at once, and to 5 only once the first event is 60 s old', () => {
    const settings = settingsFrom({ ...queue(125), behavior: { scaleUp: { policies: [{ type: 'Percent', value: 50, period: '60s' }] } } });
    const d = driver(settings, { decider, minScale: 1, maxScale: 10, since: T0 - MINUTE }, 2);
    // An event counts while strictly newer than now − period: at exactly 60 s it no longer does.
    const seen = [0, 15, 30, 45, 59, 60, 75].map((t) => [t, d.run({ at: T0 + t * SECOND, values: { load: 1000 } }).desired]);
    expect(seen).toEqual([[0, 3], [15, 3], [30, 3], [45, 3], [59, 3], [60, 5], [75, 5]]);
  });

  it('#28 per-direction tolerance: 3700 reaches 37, 3800 never 38, 1000 reaches 10, 800 never 9', () => {
    const settings = settingsFrom({ ...queue(100), behavior: { scaleUp: { tolerance: 0.05 }, scaleDown: { tolerance: 0.5, stabilizationWindow: '0s' } } });
    const d = driver(settings, { decider, minScale: 1, maxScale: 1000, since: T0 - MINUTE }, 35);
    const phase = (from: number, load: number) => [0, 15, 30].map((t) => d.run({ at: T0 + (from + t) * SECOND, values: { load } }).desired);
    expect(phase(0, 3700)).toEqual([37, 37, 37]);
    expect(phase(60, 3800)).toEqual([37, 37, 37]);
    expect(phase(120, 1000)).toEqual([10, 10, 10]);
    expect(phase(180, 800)).toEqual([10, 10, 10]);
  });
});
