/**
 * The desired scale of a target from its load, as Knative's autoscaler decides it:
 *
 *   desired = ceil(average load over the stable window ÷ targetPerReplica)
 *
 * kept within one step of the ready replicas (at most ready × maxScaleUpRate, at least
 * ready ÷ maxScaleDownRate rounded down; a target with none counts as one). No sample in the
 * window means -1, "not yet collected": the scaler then changes nothing.
 *
 * Panic mode (off unless configured) watches a shorter window: once it asks for at least
 * `threshold` % of the ready replicas, the target panics, takes the larger of the two
 * answers and never scales down until the panic window has stayed below the threshold for a
 * whole stable window. E.g. ready 2, threshold 200 %, panic window averaging 45 with target
 * 10: 5 ÷ 2 = 250 % ≥ 200 %, so the target panics and asks for 5 even if the stable window
 * still averages 12 (→ 2).
 */
import { clampReplicas } from '../limits.js';
import type { SampleWindow } from './sample-window.js';
import { windowAverage, type Sample } from './samples.js';

/** The -1 of the seed: no sample, no decision. */
export const DESIRED_UNKNOWN = -1;

export interface DeciderSettings {
  targetPerReplica: number;
  stableWindowMs: number;
  maxScaleUpRate: number;
  maxScaleDownRate: number;
  panic: { enabled: boolean; windowMs: number; thresholdPercent: number };
}

/** Panic bookkeeping kept between reconciles. */
export interface PanicState {
  startedAt: number;
  /** The last time the panic window was over the threshold (Knative's panicTime). */
  lastOverAt: number;
  /** The highest scale asked for during this panic. */
  maxScale: number;
}

/**
 * Anything that averages a target's load over a window: a `SampleWindow` (stored samples, a
 * replay's ring) or a table's stand-in.
 */
export interface LoadWindow {
  average(now: number, windowMs: number, holdLatest: boolean): number | undefined;
}

export interface DesiredInput {
  samples: readonly Sample[] | SampleWindow | LoadWindow;
  /** The source is a gauge (push): an empty window reads as its last value. */
  holdLatest: boolean;
  readyReplicas: number;
  panic: PanicState | undefined;
  settings: DeciderSettings;
  now: number;
}

export type RateLimit = 'maxScaleUpRate' | 'maxScaleDownRate';

export type DesiredScale =
  | { kind: 'unknown'; desired: typeof DESIRED_UNKNOWN; panic: PanicState | undefined }
  | {
      kind: 'known';
      desired: number;
      /** Average load over the stable window. */
      average: number;
      /** What the load alone asks for, before the rate limits and panic. */
      fromLoad: number;
      /** Set when a rate limit held the answer back: another step is due. */
      limitedBy?: RateLimit;
      panic: PanicState | undefined;
    };

export function decideDesiredScale(input: DesiredInput): DesiredScale {
  const { settings, now } = input;
  const average = averageOf(input, settings.stableWindowMs);
  // An outage keeps the panic as it was: no data is no evidence either way.
  if (average === undefined) return { kind: 'unknown', desired: DESIRED_UNKNOWN, panic: input.panic };

  const ready = Math.max(1, clampReplicas(input.readyReplicas));
  const limits = rateLimits(input.readyReplicas, settings);
  const fromLoad = replicasFor(average, settings.targetPerReplica);
  const stable = withinRate(fromLoad, limits);
  if (!settings.panic.enabled) return known(stable.scale, average, fromLoad, stable.limitedBy, undefined);

  const panicAverage = averageOf(input, settings.panic.windowMs) ?? average;
  const panicFromLoad = replicasFor(panicAverage, settings.targetPerReplica);
  const panic = nextPanic(input.panic, panicFromLoad / ready >= settings.panic.thresholdPercent / 100, settings.stableWindowMs, now);
  if (!panic) return known(stable.scale, average, fromLoad, stable.limitedBy, undefined);

  const surge = withinRate(panicFromLoad, limits);
  const wanted = Math.max(stable.scale, surge.scale);
  // While panicking only increases apply: the highest answer so far holds.
  const maxScale = Math.max(panic.maxScale, wanted);
  const limitedBy = wanted === surge.scale ? surge.limitedBy : stable.limitedBy;
  return known(maxScale, average, Math.max(fromLoad, panicFromLoad), maxScale === wanted ? limitedBy : undefined, { ...panic, maxScale });
}

function averageOf({ samples, now, holdLatest }: DesiredInput, windowMs: number): number | undefined {
  return 'average' in samples ? samples.average(now, windowMs, holdLatest) : windowAverage(samples, now, windowMs, holdLatest);
}

/**
 * Rounded up; the epsilon keeps float noise (0.15000000000000002 ÷ 0.05) from adding a replica.
 * Never past MAX_REPLICAS, however large the load.
 */
export function replicasFor(load: number, targetPerReplica: number): number {
  return clampReplicas(Math.ceil(load / targetPerReplica - 1e-9));
}

function rateLimits(readyReplicas: number, settings: Pick<DeciderSettings, 'maxScaleUpRate' | 'maxScaleDownRate'>): { up: number; down: number } {
  // Ready replicas come from the API server: a count past the ceiling would set a rate limit past it.
  const ready = Math.max(1, clampReplicas(readyReplicas));
  return { up: Math.ceil(settings.maxScaleUpRate * ready), down: Math.floor(ready / settings.maxScaleDownRate) };
}

/** A scale within one step of the ready replicas (maxScaleUpRate, maxScaleDownRate), and the limit that held it. */
export function withinRateLimits(scale: number, readyReplicas: number, settings: Pick<DeciderSettings, 'maxScaleUpRate' | 'maxScaleDownRate'>): { scale: number; limitedBy?: RateLimit } {
  return withinRate(scale, rateLimits(readyReplicas, settings));
}

function withinRate(scale: number, limits: { up: number; down: number }): { scale: number; limitedBy?: RateLimit } {
  if (scale > limits.up) return { scale: limits.up, limitedBy: 'maxScaleUpRate' };
  if (scale < limits.down) return { scale: limits.down, limitedBy: 'maxScaleDownRate' };
  return { scale };
}

/** Starts or extends a panic while over the threshold; ends it a stable window after the last time it was. */
function nextPanic(current: PanicState | undefined, over: boolean, stableWindowMs: number, now: number): PanicState | undefined {
  if (over) return { startedAt: current?.startedAt ?? now, lastOverAt: now, maxScale: current?.maxScale ?? 0 };
  if (current && current.lastOverAt + stableWindowMs < now) return undefined;
  return current;
}

function known(desired: number, average: number, fromLoad: number, limitedBy: RateLimit | undefined, panic: PanicState | undefined): DesiredScale {
  return { kind: 'known', desired, average, fromLoad, ...(limitedBy ? { limitedBy } : {}), panic };
}
