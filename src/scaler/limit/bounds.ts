/**
 * Scale bounds of a target.
 *
 * `maxScale` 0 means "no upper bound of the target's own": Drover's ceiling, MAX_REPLICAS
 * (10,000), still applies, so that no load however large asks for more. A lower bound larger
 * than the upper one wins: a target configured with min 5 and max 3 runs 5 replicas rather
 * than being left unbounded or at 3. A desired scale that is not a number (NaN) is the lower bound.
 *
 * `reachability` exists so the upstream Knative cases port unchanged: there a revision that no
 * route can reach ignores its lower bound so that it can still reach zero. Drover targets are always
 * reachable from the load source's point of view, so the shell leaves it unset ("Unknown"), which
 * keeps the lower bound.
 */

import { MAX_REPLICAS } from '../../limits.js';

export type Reachability = 'Reachable' | 'Unreachable' | 'Unknown';

export interface ScaleBounds {
  minScale: number;
  /** 0 = unbounded. */
  maxScale: number;
  reachability?: Reachability;
}

/** The lower bound that applies now: none for an unreachable target. */
export function effectiveMinScale(bounds: ScaleBounds): number {
  return bounds.reachability === 'Unreachable' ? 0 : bounds.minScale;
}

/** The upper bound that applies: the target's own, or Drover's ceiling for an unbounded one. */
export function effectiveMaxScale(bounds: ScaleBounds): number {
  return bounds.maxScale === 0 ? MAX_REPLICAS : Math.min(bounds.maxScale, MAX_REPLICAS);
}

/** Clamps a known desired scale into the bounds, lower bound first. */
export function applyBounds(bounds: ScaleBounds, desired: number): number {
  const min = effectiveMinScale(bounds);
  if (!(desired >= min)) return min;
  const max = effectiveMaxScale(bounds);
  if (desired > max) return Math.max(min, max);
  return desired;
}
