/**
 * The Active condition after a reconcile, from the scale the plan decided ("want", unknown when
 * it holds: no metrics, or activating) and the ready replicas ("got"):
 *
 *    | want | got        | status now  | new status |
 *    | 0    | any        | any         | inactive   |  (reason TimedOut if it was activating)
 *    | > 0  | < min      | any         | activating |
 *    | > 0  | >= min     | any         | active     |
 *    | ?    | < min      | inactive    | inactive   |
 *    | ?    | < min      | activating  | activating |
 *    | ?    | < min      | active      | activating |
 *    | ?    | >= min     | inactive    | inactive   |
 *    | ?    | >= min     | activating  | active     |
 *    | ?    | >= min     | active      | active     |
 *
 * where min = max(lower bound, 1): a target is not active with fewer ready replicas than its
 * lower bound, nor with none. An unknown desired scale never wakes an inactive target: that is
 * left to a positive desired scale.
 */
import { effectiveMinScale, type ScaleBounds } from '../limit/bounds.js';
import {
  ACTIVATION_TIMED_OUT,
  isActivating,
  isInactive,
  markActivating,
  markActive,
  markInactive,
  NO_TRAFFIC,
  type TargetConditions,
} from '../read/conditions.js';

export interface ActiveConditionInput {
  /** The scale the plan decided (`plannedScale`); 'unknown' when it holds. */
  want: number | 'unknown';
  /** Ready replicas of the target. */
  got: number;
  bounds: ScaleBounds;
}

function activeThreshold(bounds: ScaleBounds): number {
  return Math.max(effectiveMinScale(bounds), 1);
}

export function computeActiveCondition(
  conditions: TargetConditions,
  { want, got, bounds }: ActiveConditionInput,
  now: number,
): TargetConditions {
  if (want === 0) {
    // The only way to zero while activating is the activation timeout.
    return markInactive(conditions, now, isActivating(conditions) ? ACTIVATION_TIMED_OUT : NO_TRAFFIC);
  }
  const mayChange = want !== 'unknown' || !isInactive(conditions);
  if (!mayChange) return conditions;
  return got < activeThreshold(bounds) ? markActivating(conditions, now) : markActive(conditions, now);
}
