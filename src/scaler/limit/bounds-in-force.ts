/**
 * The bounds a target's decision is held within, for the pipeline's behaviour and bounds stages
 * (src/scaler/limit/policy-stages.ts): minScale raised to the initial scale until the target has
 * reached it, then schedules adjusting minScale and maxScale; and the rule that names a bound
 * when it holds the replicas (a schedule's floor or ceiling, the initial scale, or minScale and
 * maxScale themselves).
 */
import { initialScaleFloor } from './knative.js';
import type { Bound, PolicyRule } from '../read/rule-names.js';
import { scheduledBounds, type ScheduledBounds } from './schedules.js';
import type { PolicySettings } from '../read/policy-settings.js';

export interface BoundsInput {
  settings: PolicySettings;
  minScale: number;
  /** 0 = unbounded. */
  maxScale: number;
  now: number;
}

type Bounds = ScheduledBounds & { initialFloor: boolean };

/** minScale raised to the initial scale until reached, then schedules; maxScale 0 is unbounded. */
export function boundsNow(input: BoundsInput, initialized: boolean): Bounds {
  const floor = initialScaleFloor(input.minScale, input.settings.initialScale, initialized);
  const scheduled = scheduledBounds(floor, input.maxScale === 0 ? Infinity : input.maxScale, input.settings.schedules, input.now);
  return { ...scheduled, initialFloor: floor > input.minScale };
}

export function withinBounds(replicas: number, bounds: Bounds): Bound {
  if (replicas < bounds.minScale) return { replicas: bounds.minScale, boundBy: boundNamed('TooFewReplicas', bounds) };
  if (replicas > bounds.maxScale) return { replicas: bounds.maxScale, boundBy: boundNamed('TooManyReplicas', bounds) };
  return { replicas };
}

/** minScale's and maxScale's rules named for the bound in force: a schedule's floor or ceiling, or the initial scale. */
export function boundNamed(rule: PolicyRule | undefined, bounds: Bounds): PolicyRule | undefined {
  if (rule === 'TooFewReplicas') return bounds.floorFrom ? 'ScheduledFloor' : bounds.initialFloor ? 'InitialScale' : rule;
  if (rule === 'TooManyReplicas') return bounds.ceilingFrom ? 'ScheduledCeiling' : rule;
  return rule;
}
