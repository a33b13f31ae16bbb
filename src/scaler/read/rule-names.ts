/**
 * The names a policy stage gives the rule that bound a decision: HPA's ScalingLimited and
 * AbleToScale reasons where HPA has one, KEDA's and Knative's otherwise. They are data (status,
 * decision log, replay timeline), so they are spelled once here.
 */
export type PolicyRule =
  // HPA v2 behavior
  | 'WithinTolerance'
  | 'ScaleUpStabilized'
  | 'ScaleDownStabilized'
  | 'ScaleUpLimit'
  | 'ScaleDownLimit'
  | 'TooManyReplicas'
  | 'TooFewReplicas'
  // sources and their health
  | 'FallbackActive'
  | 'SourceFailing'
  // activation, scale to zero
  | 'Inactive'
  | 'ActivationScale'
  | 'InitialScale'
  | 'CooldownPending'
  | 'StepToZero'
  // Knative scale-down delay
  | 'ScaleDownDelayed'
  // schedules
  | 'ScheduledFloor'
  | 'ScheduledCeiling'
  // the adaptive policy
  | 'Headroom'
  | 'ScaleDownEvidence'
  | 'ForecastFloor';

/** A stage's answer: the replica count it lets through, and the rule that changed it, if one did. */
export interface Bound {
  replicas: number;
  boundBy?: PolicyRule;
}

export function bound(replicas: number, boundBy?: PolicyRule): Bound {
  return boundBy === undefined ? { replicas } : { replicas, boundBy };
}
