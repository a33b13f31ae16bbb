/**
 * Reading and setting a target's scale, whatever it is: a Kubernetes workload through its
 * scale subresource, or a pool through its wanted count (`pool-port.ts`). The actual scale
 * ("got") is the ready replicas of a workload and the healthy running VMs of a pool.
 */
import type { TargetConfig } from '../../config/schema.js';
import type { DroverConfig } from '../../config/schema.js';
import type { ScaleTargetApi } from '../../kubernetes/scale-target-api.js';
import { ArmNotFoundError } from '../../azure/errors.js';
import { TargetNotFoundError } from '../../kubernetes/errors.js';
import type { ScalePrecondition } from '../../kubernetes/scale-target-api.js';
import type { KubernetesScaleTargetRef } from '../../kubernetes/scale-target-ref.js';
import { describeRef } from '../../kubernetes/scale-target-ref.js';
import { poolScale, type PoolPortDeps } from './pool-port.js';

export interface ObservedTarget {
  /** Spec replicas or a pool's wanted count; undefined when a workload sets none (it runs one). */
  specReplicas?: number;
  /** Ready replicas, a pool's healthy running VMs. */
  ready: number;
  /** A pool's deallocated VMs, which a raise starts before it creates any (its warm buffer); none for a workload. */
  startable?: number;
  /** The pool's `~wanted` row's ETag, read with the wanted count. */
  etag?: string;
  /** The Kubernetes object's resourceVersion, to fence a scale patch of a target read at 0. */
  resourceVersion?: string;
}

/**
 * A target's scale, read and written. Every write is fenced on what was read (see `write`), so
 * a holder whose lease ran out between its read and its write changes nothing.
 */
export interface TargetPort {
  readonly kind: 'kubernetes' | 'pool';
  /** "Deployment default/web", "pool workers". */
  readonly description: string;
  /** @param moving the target may be changing: do not answer from a cache. */
  read(moving: boolean): Promise<ObservedTarget>;
  /**
   * Sets the scale only if the target still has the scale `observed` read (a Kubernetes JSON
   * patch `test`, or its resourceVersion; a pool's `~wanted` row ETag); a target changed since is the
   * adapter's conflict error. Returns a note when the change was accepted but is still under way.
   */
  write(replicas: number, observed: ObservedTarget, signal?: AbortSignal): Promise<string | undefined>;
}

/** The target is gone (or its resource type): reported, not retried. */
export function isTargetMissing(error: unknown): boolean {
  return error instanceof TargetNotFoundError || error instanceof ArmNotFoundError;
}

/** What kind of port a target's scaleTargetRef names. */
export function targetPortKind(ref: TargetConfig['scaleTargetRef']): TargetPort['kind'] {
  return 'kind' in ref && ref.kind === 'Pool' ? 'pool' : 'kubernetes';
}

/** What a target's port uses: a pool's port's parts, or the Kubernetes scale adapter. */
export type TargetPortDeps = PoolPortDeps & {
  readonly config: Pick<DroverConfig, 'pools'>;
  scaleTargets(): Promise<ScaleTargetApi>;
};

export async function targetPortFor(deps: TargetPortDeps, target: TargetConfig): Promise<TargetPort> {
  const ref = target.scaleTargetRef;
  if ('kind' in ref && ref.kind === 'Pool') {
    const pool = deps.config.pools.find((p) => p.name === ref.name);
    // Config load refuses a Pool target naming no pool.
    if (!pool) throw new Error(`pool "${ref.name}" is not configured`);
    return poolScale(deps, pool);
  }
  const kubeRef = ref as KubernetesScaleTargetRef;
  const api = await deps.scaleTargets();
  const description = describeRef(kubeRef);
  return {
    kind: 'kubernetes',
    description,
    async read() {
      const { specReplicas, readyReplicas, resourceVersion } = await api.readScale(kubeRef);
      return { ...(specReplicas === undefined ? {} : { specReplicas }), ready: readyReplicas, ...(resourceVersion ? { resourceVersion } : {}) };
    },
    async write(replicas, observed) {
      await api.patchScale(kubeRef, replicas, preconditionOf(observed, description));
      return undefined;
    },
  };
}

/**
 * What a scale patch is conditional on: the replicas read, when the Scale carries them (a Scale
 * at 0 omits spec.replicas, where a `test` cannot match), else the resourceVersion read.
 */
export function preconditionOf(observed: ObservedTarget, description: string): ScalePrecondition {
  if (observed.specReplicas !== undefined && observed.specReplicas > 0) return { kind: 'replicas', replicas: observed.specReplicas };
  if (observed.resourceVersion !== undefined) return { kind: 'resourceVersion', resourceVersion: observed.resourceVersion };
  throw new Error(`${description}: read without spec.replicas or resourceVersion, nothing to fence the scale patch with`);
}
