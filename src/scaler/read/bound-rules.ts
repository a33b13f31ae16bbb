/**
 * What bound a decision: the rule of the pipeline that last changed the replicas the load asked
 * for, named as HPA's and KEDA's users know them. Shown in status, on the page, in the decision
 * log and in the replay's timeline. Undefined when the load's answer stood unchanged.
 */
import type { RateLimit } from '../../load/decider.js';

export const BOUND_RULES = [
  /** maxScaleUpRate (Knative) or a `behavior.scaleUp` policy held a rise back. */
  'ScaleUpLimit',
  /** maxScaleDownRate (Knative) or a `behavior.scaleDown` policy held a fall back. */
  'ScaleDownLimit',
  /** A `behavior` stabilization window kept a higher (down) or lower (up) recommendation. */
  'ScaleDownStabilized',
  'ScaleUpStabilized',
  /** Panic mode kept the highest scale asked for during the panic. */
  'Panicking',
  /** A failing source blocked a scale-down (HPA: any signal broken, no scale-down). */
  'SourceFailing',
  /** Fallback replicas apply: every source failed past its threshold. */
  'FallbackActive',
  /** Knative's scaleDownDelay kept the highest scale of the delay window. */
  'ScaleDownDelayed',
  /** Knative's initialScale or activationScale raised the first scale. */
  'InitialScale',
  'ActivationScale',
  /** minScale, maxScale. */
  'TooFewReplicas',
  'TooManyReplicas',
  /** An open schedule window raised the floor or lowered the ceiling. */
  'ScheduledFloor',
  'ScheduledCeiling',
  /** No load sample: nothing lowered. */
  'NoEvidence',
  /** Going to zero waits: the stable window, the activator, the grace period. */
  'ScaleToZeroPending',
  /** A queue-driven target waits out its cooldown before going to zero. */
  'CooldownPending',
  /** HPA: the usage ratio lay within the behavior's tolerance, so the count stayed. */
  'WithinTolerance',
  /** A queue-driven target at zero stays there: no source is above its activation threshold. */
  'Inactive',
  /** A queue-driven target goes to zero only from 1: one step first. */
  'StepToZero',
  /** Paused by `drover pause` or `paused: true`. */
  'Paused',
  /** The adaptive policy raised above the load's level by the headroom its budget calls for. */
  'Headroom',
  /** The adaptive policy's fall waits until its recommendations stayed lower for its evidence window (16 start-up delays or two thirds of that, calibrated with the headroom; 8 while the target is young). */
  'ScaleDownEvidence',
  /** The adaptive policy's forecast (`forecast.mode: floor`) raised to the rise seen a day and a week ago, ahead of it. */
  'ForecastFloor',
] as const;

export type BoundRule = (typeof BOUND_RULES)[number];

/** The rule each of Knative's rate limits names when it holds a scale back (the windows' answer and the adaptive policy's alike). */
export const RATE_RULES: Record<RateLimit, 'ScaleUpLimit' | 'ScaleDownLimit'> = { maxScaleUpRate: 'ScaleUpLimit', maxScaleDownRate: 'ScaleDownLimit' };
