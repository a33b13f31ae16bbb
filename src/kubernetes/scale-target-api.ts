/**
 * The narrow port the scaler uses to read and set a Kubernetes target's scale.
 */
import type { KubernetesScaleTargetRef } from './scale-target-ref.js';

export interface ObservedScale {
  /** The replicas the target asks for; undefined when a workload sets none (reads as 1). */
  specReplicas?: number;
  /** The actual scale: ready replicas (a workload's status.readyReplicas, else the scale's status.replicas). */
  readyReplicas: number;
  /** metadata.resourceVersion of what was read (a workload's is its Scale's too). */
  resourceVersion?: string;
}

export interface KubernetesCallOptions {
  /** Aborts the request (the object's lease lost, the pass out of time, the host stopping). */
  signal?: AbortSignal;
}

/**
 * What a scale patch requires of the target, so that a holder acting on a stale read changes
 * nothing: spec.replicas still as read (a JSON patch `test`, refused with 422), or the
 * object's resourceVersion (refused with 409 when stale).
 */
export type ScalePrecondition = { kind: 'replicas'; replicas: number } | { kind: 'resourceVersion'; resourceVersion: string };

export interface ScaleTargetApi {
  /**
   * One read of the target, not retried. Throws TargetNotFoundError when the target (or its
   * resource type) does not exist, KubernetesRequestError otherwise.
   */
  readScale(ref: KubernetesScaleTargetRef, options?: KubernetesCallOptions): Promise<ObservedScale>;
  /**
   * Sets spec.replicas through the /scale subresource if `precondition` still holds; not
   * retried. Throws TargetNotFoundError, TargetConflictError when the precondition failed (422
   * for a failed `test`, 409 for a stale resourceVersion), RateLimitedError on a 429,
   * KubernetesRequestError otherwise.
   */
  patchScale(ref: KubernetesScaleTargetRef, replicas: number, precondition: ScalePrecondition, options?: KubernetesCallOptions): Promise<void>;
}
