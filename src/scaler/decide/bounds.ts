/**
 * Scale bounds of a target.
 *
 * `maxScale` 0 means "no upper bound", and a lower bound larger than the upper one wins: a target
 * configured with min 5 and max 3 runs 5 replicas rather than being left unbounded or at 3.
 *
 * `reachability` exists so the upstream Knative cases port unchanged: there a revision that no
 * route can reach ignores its lower bound so that it can still reach zero. Drover targets are always
 * reachable from the load source's point of view, so the shell leaves it unset ("Unknown"), which
 * keeps the lower bound.
 */

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

/** Clamps a known desired scale into the bounds, lower bound first. */
export function applyBounds(bounds: ScaleBounds, desired: number): number {
  const min = effectiveMinScale(bounds);
  if (desired < min) return min;
  if (bounds.maxScale !== 0 && desired > bounds.maxScale) return bounds.maxScale;
  return desired;
}
