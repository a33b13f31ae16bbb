/**
 * The headroom, the evidence window and their budget, pure. The headroom is the least load above
 * the level with which the adaptive rule itself (`nextScale`), replayed over the last
 * CALIBRATION_MINUTES whole minutes, would have left no more of the demand unserved than the
 * budget in force: the policy is held to its budget on the load it has just seen, not on a model
 * of it. The evidence window is calibrated with it: of the windows EVIDENCE_SHARES offers, the one
 * whose replay, at its own least headroom, held the least capacity. The budget in force is the
 * configured one corrected by what the target really left unserved (the ready count it showed
 * against each minute's demand): an overspent budget tightens the next calibrations, an unspent
 * one loosens them, evened out over BUDGET_HORIZON_MINUTES. Of that budget, each calibration
 * aims at a share in proportion to the demand of its window against the day's (`demandWeighted`).
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

/**
 * The day's mean demand (replicas) is a running mean until it has a day of minutes, then weighted
 * over the last BUDGET_HORIZON_MINUTES (exponentially): the reference a window's demand is set
 * against.
 */
export interface DayDemand {
  mean: number;
  /** Minutes folded in, up to BUDGET_HORIZON_MINUTES. */
  minutes: number;
}

export const NO_DAY_DEMAND: DayDemand = { mean: 0, minutes: 0 };

export function foldDayDemand(day: DayDemand, demand: number): DayDemand {
  const minutes = Math.min(BUDGET_HORIZON_MINUTES, day.minutes + 1);
  return { mean: day.mean + (demand - day.mean) / minutes, minutes };
}

/**
 * A window's demand is at most this many times the day's, and at least its inverse, in what the
 * window is allowed: no window plans to leave more than twice the budget unserved.
 */
export const DEMAND_WEIGHT_LIMIT = 2;

/**
 * The budget a calibration aims at, in proportion to its window's demand against the day's. A
 * replica of headroom costs the same in every hour but buys less of θU where the demand is high
 * (one replica short of 12 is a twelfth of the minute's demand, of 3 a third), so a budget held
 * equal in every hour buys its last share dearly in the busy ones: weighted by demand, the
 * busy hours spend more of it and the quiet ones less, and the day's balance (foldBudget) keeps
 * the day's θU to the budget.
 */
export function demandWeighted(budget: number, windowDemand: number, day: DayDemand): number {
  if (!(day.mean > 0)) return budget;
  return budget * Math.min(DEMAND_WEIGHT_LIMIT, Math.max(1 / DEMAND_WEIGHT_LIMIT, windowDemand / day.mean));
}

/** The mean demand (replicas) of the calibration's window: the last CALIBRATION_MINUTES of `load`. */
export function windowDemand(load: readonly number[], targetPerReplica: number): number {
  const window = load.slice(-CALIBRATION_MINUTES);
  return window.length === 0 ? 0 : window.reduce((sum, l) => sum + replicasFor(l, targetPerReplica), 0) / window.length;
}

/** out[i] = the highest of xs[i − width … i] for i from `start` (exact once i − width ≥ start, or start is 0), in one pass over a descending run of candidates. */
function slidingMax(xs: readonly number[], width: number, start: number): Float64Array {
  const out = new Float64Array(xs.length);
  const run = new Int32Array(xs.length);
  let head = 0;
  let tail = 0;
  for (let i = start; i < xs.length; i++) {
    const v = xs[i]!;
    while (tail > head && xs[run[tail - 1]!]! <= v) tail--;
    run[tail++] = i;
    if (run[head]! < i - width) head++;
    out[i] = xs[run[head]!]!;
  }
  return out;
}

/** What a replay of the rule left unserved (the share of the demand, as θU counts it) and the capacity it held: the mean scale it decided over the same minutes, in replicas. */
export interface ReplayOutcome {
  unserved: number;
  held: number;
}

/** One calibration's replays, by headroom and evidence window (minutes). */
export type Replay = (headroom: number, evidence: number) => ReplayOutcome;

/**
 * The replays of the rule over the last CALIBRATION_MINUTES of `history` (whole minutes), each
 * from the scale it had its evidence window and the start-up delay before them; minute t's supply
 * is the lowest scale decided over [t − ahead, t] (a raise is ready `ahead` minutes on, a fall at
 * once). `rises`, one a minute of `history`: the rise the forecast had for it, added to its level
 * (`forecast.mode: floor`, forecast.ts). What no headroom or window changes (the levels, the
 * demand) is computed once for all of a calibration's replays. Undefined until the history holds
 * the window.
 */
export function replayer(history: Pick<MinuteHistory, 'load' | 'scale'>, windows: DelayWindows, targetPerReplica: number, rises?: readonly number[]): Replay | undefined {
  const n = history.load.length;
  if (!holdsCalibrationWindow(n, windows)) return undefined;
  const from = n - CALIBRATION_MINUTES;
  const lifted = levels(history.load).map((level, i) => level + (rises?.[i] ?? 0));
  const demand = history.load.map((l) => replicasFor(l, targetPerReplica));
  const floors = demand.map((d) => (windows.exposure < 1 ? d : 0));
  return (headroom, evidence) => {
    const first = Math.max(0, from - windows.ahead - evidence);
    // The windows' highest are exact from `first` on when the recommendations start a window before it.
    const lookback = Math.max(0, first - Math.max(evidence, windows.fallTo));
    const recs: number[] = new Array<number>(n).fill(0);
    for (let i = lookback; i < n; i++) recs[i] = recommendation(lifted[i]!, headroom, targetPerReplica);
    const evidenceHigh = slidingMax(recs, evidence, lookback);
    const recentHigh = slidingMax(recs, windows.fallTo, lookback);
    const decided = new Float64Array(n);
    let scale = history.scale[first] || recs[first]!;
    for (let i = first; i < n; i++) {
      decided[i] = scale = nextScale({ scale, recommended: recs[i]!, evidenceHigh: i >= evidence ? evidenceHigh[i] : undefined, recentHigh: recentHigh[i]!, floor: floors[i]! }).replicas;
    }
    let unserved = 0;
    let held = 0;
    for (let t = from; t < n; t++) {
      let supply = Infinity;
      for (let j = t - windows.ahead; j <= t; j++) supply = Math.min(supply, decided[j]!);
      unserved += unservedShare(demand[t]!, supply, windows.exposure);
      // What is paid for: a raise from the moment it is written, a fall at once.
      held += decided[t]!;
    }
    return { unserved: unserved / CALIBRATION_MINUTES, held: held / CALIBRATION_MINUTES };
  };
}

/** Whether `minutes` whole minutes are enough to calibrate on: the window and, before it, the start-up delay the replay's first minute looks back on. */
export function holdsCalibrationWindow(minutes: number, windows: DelayWindows): boolean {
  return minutes - CALIBRATION_MINUTES >= windows.ahead;
}

/** The least headroom in [0, highest] whose replays with `evidence` stay within `budget` (a fraction), by bisection. */
function leastHeadroom(replay: Replay, evidence: number, budget: number, highest: number): number {
  if (replay(0, evidence).unserved <= budget) return 0;
  let lo = 0;
  let hi = highest;
  for (let step = 0; step < SEARCH_STEPS; step++) {
    const mid = (lo + hi) / 2;
    if (replay(mid, evidence).unserved <= budget) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The headroom search's upper end: the highest load seen and a replica more (every minute then served). */
const highestHeadroom = (history: Pick<MinuteHistory, 'load'>, targetPerReplica: number) => Math.max(...history.load) + targetPerReplica;

/**
 * The evidence windows the calibration weighs, as shares of the longest (EVIDENCE_DELAYS start-up
 * delays), longest first. A long window gives a unit back only after a long lull; a shorter one
 * sooner, and then needs more headroom for the load that comes back: which costs less depends on
 * the load, so the replay decides. The replay prices capacity, not the actions a fall and the
 * raise after it take: where the two windows hold about the same, the shorter one's falls are
 * churn. Two thirds, not half: with a start-up delay learned to the VM's own (3 min), half the
 * longest (24 min) made a fifth more actions on seven NASA weeks' VMs (2,818 against 2,373) and
 * saved 0.2 % of their cost. None is shorter than the fall-to window (FALL_TO_DELAYS): a fall
 * goes to the highest recommendation of that window, so a shorter evidence window would add
 * falls that give back nothing more.
 */
export const EVIDENCE_SHARES = [1, 2 / 3] as const;

/**
 * A young target's evidence window, as a share of the longest: its history does not hold the
 * calibration window, so no budget is measured and nothing buys a longer window's fewer falls,
 * and without headroom the shorter holds the less capacity (two thirds of the longest cost 3.6 %
 * more on the hour-long LLM `code` trace's VMs).
 */
export const YOUNG_EVIDENCE_SHARE = 1 / 2;

const evidenceOf = (windows: DelayWindows, share: number) => Math.max(windows.fallTo, Math.ceil(windows.evidence * share));

/** The evidence windows (minutes) of EVIDENCE_SHARES for these windows, longest first, none shorter than the fall-to window (the longest start-ups' evidence is capped nearer it). */
export const evidenceChoices = (windows: DelayWindows): number[] => EVIDENCE_SHARES.map((share) => evidenceOf(windows, share));

/** The evidence window a young target takes (YOUNG_EVIDENCE_SHARE of the longest, at least the fall-to window). */
export const youngEvidence = (windows: DelayWindows): number => evidenceOf(windows, YOUNG_EVIDENCE_SHARE);

/**
 * The evidence window is weighed again on minutes that are a multiple of this (and whenever the
 * start-up delay changed); in between the headroom is calibrated for the window last chosen. A
 * window spans many minutes, so a quarter hour's lag costs little, and the calibration a minute
 * stays one search instead of one per window.
 */
export const EVIDENCE_CHOICE_MINUTES = 15;

/** The headroom (load units) and the evidence window (minutes) the rule decides with. */
export interface Calibration {
  headroom: number;
  evidence: number;
}

/**
 * The headroom and the evidence window together: for each of the windows `choices` (minutes,
 * longest first), the least headroom within `budget`; of those pairs, the one whose replay held
 * the least capacity (on a tie the longer window: fewer actions). Before the history holds the
 * calibration window no budget can be measured: no headroom, and a young target's window
 * (youngEvidence).
 */
export function calibrate(history: Pick<MinuteHistory, 'load' | 'scale'>, windows: DelayWindows, choices: readonly number[], budget: number, targetPerReplica: number, rises?: readonly number[]): Calibration {
  const replay = replayer(history, windows, targetPerReplica, rises);
  if (!replay) return { headroom: 0, evidence: youngEvidence(windows) };
  const highest = highestHeadroom(history, targetPerReplica);
  let best: (Calibration & { held: number }) | undefined;
  for (const evidence of choices) {
    const headroom = leastHeadroom(replay, evidence, budget, highest);
    // One window alone needs no comparison: its replay is not run again.
    if (choices.length === 1) return { headroom, evidence };
    const { held } = replay(headroom, evidence);
    if (!best || held < best.held) best = { headroom, evidence, held };
  }
  return { headroom: best!.headroom, evidence: best!.evidence };
}
