/**
 * The parts one object is reconciled with: the same as the process's, except that every ARM
 * and Kubernetes call it makes carries the object's signal (its lease, its pass's deadline, the
 * host's shutdown) and a listing stops at the object's VM cap. So a timed-out or lease-lost
 * object aborts alone, and the code that reconciles it needs no signal threaded through.
 */
import type { CallOptions, ScaleSetApi } from '../azure/scale-set-api.js';
import type { ScaleTargetApi } from '../kubernetes/scale-target-api.js';

/** VMs a target's listing may hold: a Pool target lists none (it reads the pool's cache), a pool uses its own instanceLimit. */
export const TARGET_MAX_VMS = 1_000;

export interface ObjectScope {
  signal: AbortSignal;
  /** Most VMs one listing may return before it is refused. */
  maxVms: number;
}

/** The adapters a scope wraps; whatever else the parts hold is handed on as it is. */
export interface ScopedAdapters {
  scaleSetApi(): Promise<ScaleSetApi>;
  scaleTargets(): Promise<ScaleTargetApi>;
}

export function scopedDeps<Deps extends ScopedAdapters>(deps: Deps, scope: ObjectScope): Deps {
  return {
    ...deps,
    scaleSetApi: async () => scopedScaleSetApi(await deps.scaleSetApi(), scope),
    scaleTargets: async () => scopedScaleTargets(await deps.scaleTargets(), scope.signal),
  };
}

/** The caller's own signal (if any) and the object's, whichever aborts first. */
function joined(own: AbortSignal | undefined, signal: AbortSignal): AbortSignal {
  return own ? AbortSignal.any([own, signal]) : signal;
}

function withSignal(options: CallOptions | undefined, signal: AbortSignal): CallOptions {
  return { ...options, abortSignal: joined(options?.abortSignal, signal) };
}

export function scopedScaleSetApi(api: ScaleSetApi, scope: ObjectScope): ScaleSetApi {
  return {
    getScaleSet: (rg, name, options) => api.getScaleSet(rg, name, withSignal(options, scope.signal)),
    listVms: (rg, name, mode, options) => api.listVms(rg, name, mode, { maxVms: scope.maxVms, ...withSignal(options, scope.signal) }),
    setCapacity: (rg, name, capacity, etag, options) => api.setCapacity(rg, name, capacity, etag, withSignal(options, scope.signal)),
    deleteInstances: (rg, name, ids, options) => api.deleteInstances(rg, name, ids, withSignal(options, scope.signal)),
    setPower: (rg, name, mode, power, ids, options) => api.setPower(rg, name, mode, power, ids, withSignal(options, scope.signal)),
  };
}

export function scopedScaleTargets(api: ScaleTargetApi, signal: AbortSignal): ScaleTargetApi {
  return {
    readScale: (ref, options) => api.readScale(ref, { signal: joined(options?.signal, signal) }),
    patchScale: (ref, replicas, precondition, options) =>
      api.patchScale(ref, replicas, precondition, { signal: joined(options?.signal, signal) }),
  };
}
