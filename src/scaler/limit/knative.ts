/**
 * Knative's per-revision knobs after its rate limits: `scaleDownDelay` (the decision is the
 * highest one of the last delay, in 2-second buckets), `activationScale` (a target that wakes
 * comes up to at least this many) and `initialScale` (until a target has once reached it, it is
 * its lower bound).
 */
import { bound, type Bound } from '../read/rule-names.js';
import { bucketsFor, currentMax, recordMax, timeBucket, type MaxWindow } from './max-window.js';

/** Knative's decider ticks every 2 s; the delay window's buckets are that wide. */
export const DELAY_GRANULARITY_MS = 2_000;

export interface DelayOutcome extends Bound {
  window: MaxWindow;
}

/**
 * With a delay, every decision is recorded and the window's maximum returned, so a scale-down
 * happens only once the higher decisions are a whole delay old. Without one the window is dropped.
 */
export function applyScaleDownDelay(replicas: number, window: MaxWindow, delayMs: number, now: number): DelayOutcome {
  if (delayMs <= 0) return { replicas, window: [] };
  const next = recordMax(window, bucketsFor(delayMs, DELAY_GRANULARITY_MS), timeBucket(now, DELAY_GRANULARITY_MS), replicas);
  const held = currentMax(next);
  return { ...bound(held, held > replicas ? 'ScaleDownDelayed' : undefined), window: next };
}

/**
 * Knative's activation-scale: above 1, a decision the load wants above zero (its unclamped
 * demand) is at least `activationScale`.
 */
export function applyActivationScale(replicas: number, demand: number, activationScale: number): Bound {
  if (activationScale <= 1 || demand <= 0 || replicas >= activationScale) return bound(replicas);
  return bound(activationScale, 'ActivationScale');
}

/** The lower bound while the target has not yet reached its initial scale (Knative's ScaleTargetInitialized). */
export function initialScaleFloor(minScale: number, initialScale: number, initialized: boolean): number {
  return !initialized && initialScale > 1 ? Math.max(minScale, initialScale) : minScale;
}

/** A target is initialized once its ready replicas have reached the initial scale; it stays so. */
export function isInitialized(wasInitialized: boolean, ready: number, initialScale: number): boolean {
  return wasInitialized || ready >= initialScale;
}
