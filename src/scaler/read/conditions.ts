/**
 * The Active and Ready conditions of a scale target, and the questions the scaler asks of them.
 *
 * Ready has exactly one dependent, Active, so every mark sets both to the same status; Ready is
 * still kept as its own condition because the scale-to-zero decision asks "is it Ready?" (not
 * "is it Active?") and a target whose Ready is missing or False is treated as inactive even when
 * Active says True. The shell usually stores only Active and rebuilds both with
 * `conditionsFromActive`.
 *
 * A condition rewritten with the status it already has keeps its last transition time, even if
 * the reason changes: the time answers "since when has it been in this status", which is what
 * the stable window, the grace period and the activation timeout measure.
 */

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  status: ConditionStatus;
  /** Epoch ms of the last status change. 0 reads as "long ago". */
  lastTransitionTime: number;
  reason?: string;
}

export interface TargetConditions {
  active?: Condition;
  ready?: Condition;
}

export const NO_TRAFFIC = 'NoTraffic';
export const ACTIVATION_TIMED_OUT = 'TimedOut';
export const QUEUED = 'Queued';
/** Reasons of a target's first reconcile, which adopts it as it runs. */
export const ADOPTED_ACTIVE = 'AdoptedActive';
export const ADOPTED_ACTIVATING = 'AdoptedActivating';
export const ADOPTED_AT_ZERO = 'AdoptedAtZero';

function setCondition(
  existing: Condition | undefined,
  status: ConditionStatus,
  reason: string | undefined,
  now: number,
): Condition {
  const same = existing?.status === status;
  const lastTransitionTime = same ? existing.lastTransitionTime : now;
  // Marking active again keeps the reason it became active with (say, how it was adopted).
  const kept = reason ?? (same ? existing.reason : undefined);
  return kept === undefined ? { status, lastTransitionTime } : { status, lastTransitionTime, reason: kept };
}

function mark(
  conditions: TargetConditions,
  status: ConditionStatus,
  reason: string | undefined,
  now: number,
): TargetConditions {
  return {
    active: setCondition(conditions.active, status, reason, now),
    ready: setCondition(conditions.ready, status, reason, now),
  };
}

/**
 * Fills in missing conditions without touching present ones: Ready becomes Unknown, and a
 * missing Active takes True when Ready is already True (Ready True implies its dependent is),
 * Unknown otherwise.
 */
export function initializeConditions(conditions: TargetConditions, now: number): TargetConditions {
  const ready = conditions.ready ?? { status: 'Unknown', lastTransitionTime: now };
  const active = conditions.active ?? {
    status: ready.status === 'True' ? 'True' : 'Unknown',
    lastTransitionTime: now,
  };
  return { active, ready };
}

export function markActive(conditions: TargetConditions, now: number, reason?: string): TargetConditions {
  return mark(conditions, 'True', reason, now);
}

export function markInactive(
  conditions: TargetConditions,
  now: number,
  reason: string = NO_TRAFFIC,
): TargetConditions {
  return mark(conditions, 'False', reason, now);
}

export function markActivating(
  conditions: TargetConditions,
  now: number,
  reason: string = QUEUED,
): TargetConditions {
  return mark(conditions, 'Unknown', reason, now);
}

/** Both conditions from a stored Active condition, as the marks would have left them. */
export function conditionsFromActive(active: Condition | undefined): TargetConditions {
  return active === undefined ? {} : { active: { ...active }, ready: { ...active } };
}

/** Active is present and Unknown; no Active condition at all is not "activating". */
export function isActivating(conditions: TargetConditions): boolean {
  return conditions.active?.status === 'Unknown';
}

export function isInactive(conditions: TargetConditions): boolean {
  return conditions.active?.status === 'False';
}

export function isReady(conditions: TargetConditions): boolean {
  return conditions.ready?.status === 'True';
}

/** How far past `durationMs` the Active condition has been in `status`, or -1 if it is not. */
function inStatusFor(
  conditions: TargetConditions,
  status: ConditionStatus,
  now: number,
  durationMs: number,
): number {
  const active = conditions.active;
  if (active?.status !== status) return -1;
  return now - (active.lastTransitionTime + durationMs);
}

/** Milliseconds the target has been Active, or -1 when it is not. */
export function activeFor(conditions: TargetConditions, now: number): number {
  return inStatusFor(conditions, 'True', now, 0);
}

/** Inactive for strictly longer than the grace period. */
export function canScaleToZero(conditions: TargetConditions, now: number, gracePeriodMs: number): boolean {
  return inStatusFor(conditions, 'False', now, gracePeriodMs) > 0;
}

/** Activating for strictly longer than the activation timeout. */
export function canFailActivation(
  conditions: TargetConditions,
  now: number,
  activationTimeoutMs: number,
): boolean {
  return inStatusFor(conditions, 'Unknown', now, activationTimeoutMs) > 0;
}
