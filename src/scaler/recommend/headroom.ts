/**
 * The headroom and its budget, pure. The headroom is the least load above the level with which the
 * adaptive rule itself (`nextScale`), replayed over the last CALIBRATION_MINUTES whole minutes,
 * would have left no more of the demand unserved than the budget in force: the policy is held to
 * its budget on the load it has just seen, not on a model of it. The budget in force is the
 * configured one corrected by what the target really left unserved (the ready count it showed
 * against each minute's demand): an overspent budget tightens the next calibrations, an unspent
 * one loosens them, evened out over BUDGET_HORIZON_MINUTES.
 */
import { replicasFor } from '../../load/decider.js';
import { CALIBRATION_MINUTES, levels, nextScale, recommendation, type DelayWindows } from './adaptive.js';
import type { MinuteHistory } from './adaptive-history.js';

/** The budget's balance evens out over a day: a diurnal load's quiet and busy hours both count. */
export const BUDGET_HORIZON_MINUTES = 1_440;
/** Binary-search steps: the headroom to 1/4096 of the highest load seen. */
const SEARCH_STEPS = 12;

/**
 * The share of a minute's demand left unserved: the units short over the units asked for, for the
 * part of the minute (`exposure`) before capacity raised on the minute's own reading is ready. A
 * minute without demand leaves nothing unserved.
 */
export function unservedShare(demand: number, supply: number, exposure: number): number {
  return demand > 0 && supply < demand ? (exposure * (demand - supply)) / demand : 0;
}

/** The balance after one more minute: what the budget allowed less what was unserved, within a day's budget either way. */
export function foldBudget(balance: number, unserved: number, budget: number): number {
  const cap = budget * BUDGET_HORIZON_MINUTES;
  return Math.max(-cap, Math.min(cap, balance + budget - unserved));
}

/** The budget the calibration aims at: the configured one moved by the balance over a day, at least a quarter of it. */
export function budgetInForce(budget: number, balance: number): number {
  return Math.max(budget / 4, budget + balance / BUDGET_HORIZON_MINUTES);
}

/** out[i] = the highest of xs[i − width … i], in one pass (a descending run of candidates). */
function slidingMax(xs: readonly number[], width: number): number[] {
  const run: number[] = [];
  return xs.map((v, i) => {
    while (run.length > 0 && xs[run.at(-1)!]! <= v) run.pop();
    run.push(i);
    if (run[0]! < i - width) run.shift();
    return xs[run[0]!]!;
  });
}

/**
 * The share of demand the rule would have left unserved over the last CALIBRATION_MINUTES of
 * `history` (whole minutes) with `headroom`: replayed from the scale it had an evidence window
 * before them; minute t's supply is the lowest scale decided over [t − ahead, t] (a raise is ready
 * `ahead` minutes on, a fall at once). `rises`, one a minute of `history`: the rise the forecast
 * had for it, added to its level (`forecast.mode: floor`, forecast.ts). Undefined until the
 * history holds the window.
 */
export function replayUnserved(history: Pick<MinuteHistory, 'load' | 'scale'>, headroom: number, windows: DelayWindows, targetPerReplica: number, rises?: readonly number[]): number | undefined {
  const n = history.load.length;
  if (!holdsCalibrationWindow(n, windows)) return undefined;
  const from = n - CALIBRATION_MINUTES;
  const recs = levels(history.load).map((level, i) => recommendation(level + (rises?.[i] ?? 0), headroom, targetPerReplica));
  const evidenceHigh = slidingMax(recs, windows.evidence);
  const recentHigh = slidingMax(recs, windows.fallTo);
  const demand = history.load.map((l) => replicasFor(l, targetPerReplica));
  const floorOf = (i: number) => (windows.exposure < 1 ? demand[i]! : 0);
  const first = Math.max(0, from - windows.ahead - windows.evidence);
  const decided: number[] = [];
  let scale = history.scale[first] || recs[first]!;
  for (let i = first; i < n; i++) {
    const input = { scale, recommended: recs[i]!, evidenceHigh: i >= windows.evidence ? evidenceHigh[i] : undefined, recentHigh: recentHigh[i]!, floor: floorOf(i) };
    decided[i] = scale = nextScale(input).replicas;
  }
  let unserved = 0;
  for (let t = from; t < n; t++) {
    let supply = Infinity;
    for (let j = t - windows.ahead; j <= t; j++) supply = Math.min(supply, decided[j]!);
    unserved += unservedShare(demand[t]!, supply, windows.exposure);
  }
  return unserved / CALIBRATION_MINUTES;
}

/** Whether `minutes` whole minutes are enough to calibrate on: the window and, before it, the start-up delay the replay's first minute looks back on. */
export function holdsCalibrationWindow(minutes: number, windows: DelayWindows): boolean {
  return minutes - CALIBRATION_MINUTES >= windows.ahead;
}

/** The least headroom (load units) whose replay stays within `budget` (a fraction); 0 before the history holds the window. */
export function calibrateHeadroom(history: Pick<MinuteHistory, 'load' | 'scale'>, windows: DelayWindows, budget: number, targetPerReplica: number, rises?: readonly number[]): number {
  const at = (h: number) => replayUnserved(history, h, windows, targetPerReplica, rises);
  const none = at(0);
  if (none === undefined || none <= budget) return 0;
  let lo = 0;
  let hi = Math.max(...history.load) + targetPerReplica;
  for (let step = 0; step < SEARCH_STEPS; step++) {
    const mid = (lo + hi) / 2;
    if (at(mid)! <= budget) hi = mid;
    else lo = mid;
  }
  return hi;
}
