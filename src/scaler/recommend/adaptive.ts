/**
 * The adaptive policy's rules (docs/scaling.md, "The default policy"), pure: a target holds the
 * capacity its load may need before capacity asked for now could be ready, and gives capacity back
 * only on evidence, within a stated budget of demand left unserved.
 *
 *   StartupDelay       learned from each raise to the moment the ready count reached it
 *   Headroom           above the load's recent level, calibrated to the budget (headroom.ts)
 *   ScaleDownEvidence  a fall waits until the recommendation stayed below the scale for the
 *                      evidence window: EVIDENCE_DELAYS start-up delays or a share of it,
 *                      calibrated with the headroom (headroom.ts)
 *   ForecastFloor      with `forecast.mode: floor`, the rise seen a day and a week ago, ahead
 *                      (forecast.ts)
 *
 * The one rule (`nextScale`) decides a live reconcile and every minute of the headroom's
 * calibration replay alike. What the rules keep between reconciles is plain data the stage stores
 * in the target's row (adaptive-history.ts).
 */
import { replicasFor } from '../../load/decider.js';
import { bound, type Bound } from '../read/rule-names.js';

export interface AdaptiveSettings {
  /** The start-up delay until OBSERVATIONS_TO_LEARN raises were seen: the target kind's. */
  defaultStartupDelayMs: number;
  /** The share of its demand (percent, averaged over time: SPEC's θU) the target may leave unserved. */
  underProvisioningPercent: number;
  /** The forecast from the load a day and a week ago (forecast.ts). */
  forecast: ForecastMode;
}

/** `off` keeps and reads nothing of the season; `observe` computes and shows the floor; `floor` applies it. */
export type ForecastMode = 'off' | 'observe' | 'floor';

/** A start-up delay is never taken as longer than this (a raise that never completes). */
export const MAX_STARTUP_DELAY_MS = 30 * 60_000;
/** Raises seen before the learned delay replaces the kind's default. */
export const OBSERVATIONS_TO_LEARN = 3;
/** The latest raises the learned delay is taken from. */
export const KEPT_OBSERVATIONS = 5;
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
 * watched from now, unless the pool has deallocated VMs enough to start for all of it (its warm
 * buffer): a start says nothing of how long a creation takes, and the delay must cover the slowest
 * way capacity comes, or the budget is spent whenever the buffer runs out. The starts' speed shows
 * in the ready counts, which the budget's balance credits.
 */
export function observeStartup(state: StartupState, seen: { scale: number; ready: number; startable?: number }, planned: number, now: number): StartupState {
  const pending = state.pending;
  if (pending) {
    const waited = now - pending.at;
    if (seen.ready >= pending.to || waited >= MAX_STARTUP_DELAY_MS) return { observed: [...state.observed, Math.min(waited, MAX_STARTUP_DELAY_MS)].slice(-KEPT_OBSERVATIONS) };
    if (planned >= pending.to) return state;
    return { observed: state.observed };
  }
  const startsServeIt = (seen.startable ?? 0) >= planned - seen.scale;
  if (planned > seen.scale && planned > seen.ready && !startsServeIt) return { pending: { at: now, to: planned }, observed: state.observed };
  return state;
}

/** A minute's length: the load's resolution, and the step of the per-minute history. */
export const MINUTE_MS = 60_000;
/** The load's level is its mean over this many minutes: long enough to average a minute's noise away. */
export const LEVEL_MINUTES = 20;
/** The headroom is calibrated on this many of the latest whole minutes (and not before the history holds them). */
export const CALIBRATION_MINUTES = 120;
/**
 * Until the history holds the calibration window, the level is the mean of this many start-up
 * delays' minutes: a young target has no headroom measured yet, and follows its load's recent
 * rise instead of a long mean that lags it.
 */
export const YOUNG_LEVEL_DELAYS = 2;
/** The longest evidence window, in start-up delays: the calibration may choose a share of it (headroom.ts). */
export const EVIDENCE_DELAYS = 16;
/** A fall goes to the highest recommendation of this many start-up delays. */
export const FALL_TO_DELAYS = 6;
/** The evidence window at most (a start-up of 15 min or more): the history a row keeps stays within a Table property. */
export const MAX_EVIDENCE_MINUTES = 240;

/** What the start-up delay means in minutes of per-minute load. */
export interface DelayWindows {
  /** Minutes from a raise until it is ready (at least one): capacity for minute t is decided by t − ahead. */
  ahead: number;
  /** The share of a minute under demand before capacity raised on its own reading is ready (0–1]. */
  exposure: number;
  /** Minutes of evidence before a fall: the longest window (what the history keeps); the calibration may choose a shorter one. */
  evidence: number;
  /** Minutes whose highest recommendation a fall goes to. */
  fallTo: number;
}

export function delayWindows(delayMs: number): DelayWindows {
  const minutes = delayMs / MINUTE_MS;
  return {
    ahead: Math.max(1, Math.ceil(minutes)),
    exposure: Math.min(1, Math.max(minutes, 1 / 60)),
    evidence: Math.min(MAX_EVIDENCE_MINUTES, Math.max(1, Math.ceil(EVIDENCE_DELAYS * minutes))),
    fallTo: Math.min(MAX_EVIDENCE_MINUTES, Math.max(1, Math.ceil(FALL_TO_DELAYS * minutes))),
  };
}

/** What one decision sees: the recommendations it weighs and the floor the load itself sets. */
export interface RuleInput {
  /** The scale now (the count written last). */
  scale: number;
  /** This minute's recommendation: the level plus the headroom, in replicas. */
  recommended: number;
  /** The highest recommendation of the evidence window; undefined while the history is shorter than it. */
  evidenceHigh: number | undefined;
  /** The highest recommendation of the fall-to window. */
  recentHigh: number;
  /** What this minute's load asks for when capacity raised now lands within the minute (start-up under a minute); else 0. */
  floor: number;
}

/**
 * The adaptive rule: raise at once to the recommendation; hold while any recommendation of the
 * evidence window reaches the scale (or the history is shorter than the window: no evidence, no
 * fall); then fall to the highest recommendation of the fall-to window.
 */
export function nextScale(input: RuleInput): Bound {
  const now = Math.max(input.recommended, input.floor);
  if (now > input.scale) return bound(now, input.recommended > input.floor ? 'Headroom' : undefined);
  if (input.evidenceHigh === undefined || Math.max(input.evidenceHigh, input.floor) >= input.scale) {
    return bound(input.scale, input.scale > now ? 'ScaleDownEvidence' : undefined);
  }
  const fallTo = Math.max(input.recentHigh, input.floor);
  return bound(fallTo, fallTo > now ? 'ScaleDownEvidence' : undefined);
}

/** The replicas for the level plus the headroom: at least one (the floor of a running target). */
export function recommendation(level: number, headroom: number, targetPerReplica: number): number {
  return Math.max(1, replicasFor(level + headroom, targetPerReplica));
}

/** The minutes a young target's level is the mean of. */
export const youngLevelMinutes = (windows: DelayWindows) => YOUNG_LEVEL_DELAYS * windows.ahead;

/**
 * The load's level at the last minute: the mean of its LEVEL_MINUTES, or, before the headroom is
 * calibrated, of its last YOUNG_LEVEL_DELAYS start-up delays.
 */
export function levelNow(load: readonly number[], windows: DelayWindows, calibrated: boolean): number {
  const recent = load.slice(-(calibrated ? LEVEL_MINUTES : youngLevelMinutes(windows)));
  return recent.reduce((sum, v) => sum + v, 0) / recent.length;
}

/** The load's level at each minute: the mean of the LEVEL_MINUTES up to it, in one pass. */
export function levels(load: readonly number[]): number[] {
  let sum = 0;
  return load.map((v, i) => {
    sum += v - (i >= LEVEL_MINUTES ? load[i - LEVEL_MINUTES]! : 0);
    return sum / Math.min(i + 1, LEVEL_MINUTES);
  });
}
