/**
 * The narrow port the scaler uses to read and set a Kubernetes target's scale.
 */
import type { KubernetesScaleTargetRef } from './scale-target-ref.js';

export interface ObservedScale {
  /** The replicas the target asks for; undefined when a workload sets none (reads as 1). */
  specReplicas?: number;
  /** The actual scale: ready replicas (a workload's status.readyReplicas, else the scale's status.replicas). */
  readyReplicas: number;
}

export interface ScaleTargetApi {
  /**
   * One read of the target, not retried. Throws TargetNotFoundError when the target (or its
   * resource type) does not exist, KubernetesRequestError otherwise.
   */
  readScale(ref: KubernetesScaleTargetRef): Promise<ObservedScale>;
  /**
   * Sets spec.replicas through the /scale subresource; idempotent, not retried. Throws
   * TargetNotFoundError, TargetConflictError on a 409, RateLimitedError on a 429,
   * KubernetesRequestError otherwise.
   */
  patchScale(ref: KubernetesScaleTargetRef, replicas: number): Promise<void>;
}
