/**
 * Reading and setting a target's scale, whatever it is: a Kubernetes workload through its
 * scale subresource, or a scale set through `sku.capacity`. The actual scale ("got") is the
 * ready replicas of a workload and the running instances of a scale set, which come from the
 * shared instance cache: listed again while the scale set is moving, served from the cache
 * once it has settled.
 */
import type { TargetConfig } from '../../config/schema.js';
import type { Log } from '../../log.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { ScaleSetApi, ScaleSetInfo } from '../../azure/scale-set-api.js';
import { ArmNotFoundError } from '../../azure/errors.js';
import { TargetNotFoundError } from '../../kubernetes/errors.js';
import type { ScalePrecondition } from '../../kubernetes/scale-target-api.js';
import type { KubernetesScaleTargetRef } from '../../kubernetes/scale-target-ref.js';
import { describeRef } from '../../kubernetes/scale-target-ref.js';
import { ScaleSetCache, cacheKey } from '../../cache/scale-set-cache.js';
import { isRunning, poolScale } from './pool-port.js';

export interface ObservedTarget {
  /** Spec replicas or capacity; undefined when a workload sets none (it runs one). */
  specReplicas?: number;
  /** Ready replicas, running instances. */
  ready: number;
  /** The scale set's ETag, for the If-Match of the capacity write. */
  etag?: string;
  /** The Kubernetes object's resourceVersion, to fence a scale patch of a target read at 0. */
  resourceVersion?: string;
}

/**
 * A target's scale, read and written. Every write is fenced on what was read (see `write`), so
 * a holder whose lease ran out between its read and its write changes nothing.
 */
export interface TargetPort {
  readonly kind: 'kubernetes' | 'scaleSet' | 'pool';
  /** "Deployment default/web", "scale set rg/vmss". */
  readonly description: string;
  /** @param moving the target may be changing: do not answer from a cache. */
  read(moving: boolean): Promise<ObservedTarget>;
  /**
   * Sets the scale only if the target still has the scale `observed` read (a Kubernetes JSON
   * patch `test`, or its resourceVersion; a scale set's ETag); a target changed since is the
   * adapter's conflict error. Returns a note when the change was accepted but is still under way.
   */
  write(replicas: number, observed: ObservedTarget, signal?: AbortSignal): Promise<string | undefined>;
}

/** How often a scale set target's instance list is refreshed while it is not moving. */
export const SCALE_SET_TARGET_CACHE_MS = 60_000;

/** The target is gone (or its resource type): reported, not retried. */
export function isTargetMissing(error: unknown): boolean {
  return error instanceof TargetNotFoundError || error instanceof ArmNotFoundError;
}

/** What kind of port a target's scaleTargetRef names. */
export function targetPortKind(ref: TargetConfig['scaleTargetRef']): TargetPort['kind'] {
  if ('kind' in ref && ref.kind === 'Pool') return 'pool';
  return 'kind' in ref && ref.kind === 'VirtualMachineScaleSet' ? 'scaleSet' : 'kubernetes';
}

export async function targetPortFor(rt: Runtime, target: TargetConfig, log: Log): Promise<TargetPort> {
  const ref = target.scaleTargetRef;
  if ('kind' in ref && ref.kind === 'Pool') {
    const pool = rt.config.pools.find((p) => p.name === ref.name);
    // Config load refuses a Pool target naming no pool.
    if (!pool) throw new Error(`pool "${ref.name}" is not configured`);
    return poolScale(rt, pool);
  }
  if ('kind' in ref && ref.kind === 'VirtualMachineScaleSet') {
    return scaleSetScale(rt, await rt.scaleSetApi(), { resourceGroup: ref.resourceGroup, name: ref.name }, log);
  }
  const kubeRef = ref as KubernetesScaleTargetRef;
  const api = await rt.scaleTargets();
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

function scaleSetScale(rt: Runtime, api: ScaleSetApi, scaleSet: { resourceGroup: string; name: string }, log: Log): TargetPort {
  const description = `scale set ${scaleSet.resourceGroup}/${scaleSet.name}`;
  const cache = new ScaleSetCache(
    { table: rt.table('instances'), api, clock: rt.clock, log, holder: rt.holder },
    {
      key: cacheKey(scaleSet),
      ...scaleSet,
      periodMs: SCALE_SET_TARGET_CACHE_MS,
      jitterMs: 0,
      // A target only counts running instances: both orchestration modes are fine.
      flags: { enableFastDeleteOnFailedProvisioning: false, enableDetailedCSEMessage: false, enableVmssFlexNodes: true },
    },
  );
  return {
    kind: 'scaleSet',
    description,
    async read(moving) {
      const info: ScaleSetInfo = await api.getScaleSet(scaleSet.resourceGroup, scaleSet.name);
      // A capacity is never computed from an unknown size.
      if (info.capacity === undefined) throw new Error(`${description}: ARM reported no sku.capacity`);
      const view = moving ? await cache.forceUpdate(info) : await cache.validate(info);
      if (!view.read.ok) throw view.read.error;
      return { specReplicas: info.capacity, ready: view.read.instances.filter(isRunning).length, ...(info.etag ? { etag: info.etag } : {}) };
    },
    async write(replicas, observed, signal) {
      if (!observed.etag) throw new Error(`${description}: no ETag to guard the capacity write with`);
      const result = await api.setCapacity(scaleSet.resourceGroup, scaleSet.name, replicas, observed.etag, { abortSignal: signal });
      return result.done ? undefined : `ARM accepted capacity ${replicas} and is still applying it`;
    },
  };
}
