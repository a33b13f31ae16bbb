/**
 * The adaptive policy's rules (docs/scaling.md, "The default policy"), pure: a target holds the
 * capacity its load may need within the start-up delay it really has, and gives capacity back
 * only on evidence weighed against what getting it back costs.
 *
 *   StartupDelay       learned from each raise to the moment the ready count reached it
 *   ScaleDownEvidence  the load held is the highest minute of the last EVIDENCE_DELAYS × delay
 *   Headroom           above it, the rise the load may make within the delay, at the stated budget
 *
 * What they keep between reconciles is plain data the stage stores in the target's row.
 */
import { replicasFor } from '../../load/decider.js';
import { bound, type Bound } from '../read/rule-names.js';

export interface AdaptiveSettings {
  /** The start-up delay until OBSERVATIONS_TO_LEARN raises were seen: the target kind's. */
  defaultStartupDelayMs: number;
  /** The share of time (percent) the target may spend under its demand. */
  underProvisioningPercent: number;
}

/** A start-up delay is never taken as longer than this (a raise that never completes). */
export const MAX_STARTUP_DELAY_MS = 30 * 60_000;
/** Raises seen before the learned delay replaces the kind's default. */
export const OBSERVATIONS_TO_LEARN = 3;
/** The latest raises the learned delay is taken from. */
export const KEPT_OBSERVATIONS = 5;
/** Per-minute load kept for the headroom: two hours, at least four of the longest delays. */
export const HISTORY_MINUTES = 120;
/** A fall waits this many start-up delays: one to see the load has gone, two to outweigh coming back. */
export const EVIDENCE_DELAYS = 3;

const MINUTE_MS = 60_000;

/** A raise being watched until the ready count reaches it, and the delays seen so far (ms, oldest first). */
export interface StartupState {
  pending?: { at: number; to: number };
  observed: number[];
}

export const EMPTY_STARTUP: StartupState = { observed: [] };

export interface StartupDelay {
  ms: number;
  from: 'default' | 'learned';
}

/** The longest of the latest raises once enough were seen (the delay a shortfall lasts), else the default. */
export function startupDelayOf(state: StartupState, defaultMs: number): StartupDelay {
  if (state.observed.length < OBSERVATIONS_TO_LEARN) return { ms: defaultMs, from: 'default' };
  return { ms: Math.min(MAX_STARTUP_DELAY_MS, Math.max(...state.observed)), from: 'learned' };
}

/**
 * One reconcile's look at the raise in progress: done once the ready count reaches it (or it has
 * waited MAX_STARTUP_DELAY_MS), abandoned when the plan no longer asks for it; a new raise is
 * watched from now.
 */
export function observeStartup(state: StartupState, seen: { scale: number; ready: number }, planned: number, now: number): StartupState {
  const pending = state.pending;
  if (pending) {
    const waited = now - pending.at;
    if (seen.ready >= pending.to || waited >= MAX_STARTUP_DELAY_MS) return { observed: [...state.observed, Math.min(waited, MAX_STARTUP_DELAY_MS)].slice(-KEPT_OBSERVATIONS) };
    if (planned >= pending.to) return state;
    return { observed: state.observed };
  }
  if (planned > seen.scale && planned > seen.ready) return { pending: { at: now, to: planned }, observed: state.observed };
  return state;
}

/** Per-minute load, oldest first: [minute since the epoch, the highest load seen in it]. */
export type LoadMinutes = readonly (readonly [number, number])[];

export function recordLoadMinute(history: LoadMinutes, now: number, load: number): [number, number][] {
  const minute = Math.floor(now / MINUTE_MS);
  const kept = history.filter(([m]) => m > minute - HISTORY_MINUTES && m <= minute).map(([m, v]) => [m, v] as [number, number]);
  const last = kept.at(-1);
  if (last && last[0] === minute) last[1] = Math.max(last[1], load);
  else kept.push([minute, load]);
  return kept;
}

/**
 * The load a target holds capacity for: the highest minute of the evidence window (a fall waits
 * until the higher minutes are that old: ScaleDownEvidence) plus the headroom.
 */
export function recentLevel(history: LoadMinutes, windowMs: number, now: number): number {
  const since = Math.floor(now / MINUTE_MS) - Math.max(1, Math.ceil(windowMs / MINUTE_MS));
  let level = 0;
  for (const [m, v] of history) if (m > since) level = Math.max(level, v);
  return level;
}

/**
 * The rise the load may make within `delayMs` above the level held over `windowMs`: after each
 * kept minute, the highest minute within the delay less the highest of the window up to it, and
 * of those the one exceeded in at most `budgetPercent` % of the minutes (interpolated between the
 * two around it). A minute without a value holds the one before it. 0 until two rises are known.
 */
export function headroomFor(history: LoadMinutes, delayMs: number, windowMs: number, budgetPercent: number): number {
  const series = filled(history);
  const k = Math.max(1, Math.ceil(delayMs / MINUTE_MS));
  const w = Math.max(1, Math.ceil(windowMs / MINUTE_MS));
  const held = slidingMax(series, w);
  const ahead = slidingMax(series, k);
  const rises: number[] = [];
  let tail = -Infinity;
  const tails = series.map((_, i) => (tail = Math.max(tail, series[series.length - 1 - i]!))).reverse();
  for (let i = 0; i + 1 < series.length; i++) {
    // The highest of the next k minutes: the window ending k on, or what is left of the series.
    const peak = i + k < series.length ? ahead[i + k]! : tails[i + 1]!;
    rises.push(Math.max(0, peak - held[i]!));
  }
  if (rises.length < 2) return 0;
  rises.sort((a, b) => a - b);
  const at = (1 - budgetPercent / 100) * (rises.length - 1);
  const lo = Math.floor(at);
  return rises[lo]! + (rises[Math.min(lo + 1, rises.length - 1)]! - rises[lo]!) * (at - lo);
}

/** out[i] = the highest of series[i − width + 1 … i], in one pass (a descending run of candidates). */
function slidingMax(series: readonly number[], width: number): number[] {
  const run: number[] = [];
  return series.map((v, i) => {
    while (run.length > 0 && series[run.at(-1)!]! <= v) run.pop();
    run.push(i);
    if (run[0]! <= i - width) run.shift();
    return series[run[0]!]!;
  });
}

function filled(history: LoadMinutes): number[] {
  const out: number[] = [];
  for (let i = 0; i < history.length; i++) {
    const [minute, value] = history[i]!;
    const gap = i === 0 ? 0 : Math.min(HISTORY_MINUTES, minute - history[i - 1]![0] - 1);
    for (let g = 0; g < gap; g++) out.push(out.at(-1)!);
    out.push(value);
  }
  return out;
}

/** How long a fall waits: EVIDENCE_DELAYS start-up delays, at least the stable window. */
export function evidenceWindowMs(startupDelayMs: number, stableWindowMs: number): number {
  return Math.max(stableWindowMs, EVIDENCE_DELAYS * startupDelayMs);
}

/**
 * The scale for the level held plus the headroom, never below what the load alone asks for:
 * `ScaleDownEvidence` when the held level is what keeps it up, `Headroom` when the headroom is.
 */
export function adaptiveScale(replicas: number, load: { now: number; level: number; headroom: number }, targetPerReplica: number): Bound {
  // As the windows round a load: up, float noise aside, never past MAX_REPLICAS.
  const of = (l: number) => replicasFor(l, targetPerReplica);
  const wanted = of(load.level + load.headroom);
  if (wanted <= replicas) return bound(replicas);
  return bound(wanted, of(load.now + load.headroom) < wanted ? 'ScaleDownEvidence' : 'Headroom');
}
