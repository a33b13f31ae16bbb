/**
 * One scale step for a target, as pure decisions around the I/O the shell performs:
 *
 *   planScaleWithin(bounds, desired, input)
 *                                      → { kind: 'probe' } (probe, then call again with `probe`)
 *                                      | { kind: 'plan', plan: apply | report | hold }
 *   decidePatch(plan.scale, current)   → patch or not (only for `apply`)
 *
 * No evidence, no scale-down: without a load sample in the window (`desired` unknown) Drover
 * never lowers a target. The lower bound (and, with scale to zero disabled, one replica) may
 * still raise it; otherwise the plan holds, and an activation that times out without a sample
 * holds too instead of going to zero. A metrics outage must never scale anything down.
 */
import { effectiveMinScale, type ScaleBounds } from '../limit/bounds.js';
import { canFailActivation, isActivating, isInactive, type TargetConditions } from '../read/conditions.js';
import {
  apply,
  decideScaleToZero,
  DEFAULT_ACTIVATION_TIMEOUT_MS,
  hold,
  report,
  type ScaleStep,
  type ScaleToZeroSettings,
  type SyncProbeResult,
} from '../zero/scale-to-zero.js';

/** The desired scale from the load: known, or not (no sample in the window). */
export type Desired = { kind: 'known'; scale: number } | { kind: 'unknown' };

export interface ScaleInput {
  desired: Desired;
  bounds: ScaleBounds;
  conditions: TargetConditions;
  settings: ScaleToZeroSettings;
  /** When the activator was first seen in front of the target, null if it is not. */
  activatorSeenSince: number | null;
  /** Set on the second call, after a first call answered `{ kind: 'probe' }`. */
  probe?: SyncProbeResult;
  /**
   * The target's own scale (spec replicas, capacity; a workload without one runs 1). An
   * inactive target already at zero that should stay there needs no probe, and a scale the
   * load does not explain is only ever raised.
   */
  currentScale: number;
  now: number;
}

/**
 * The scale step, the desired scale already within `bounds` (the pipeline's bounds stage puts
 * it there, src/scaler/decide/pipeline.ts); undefined when no sample is in the window.
 */
export function planScaleWithin(bounds: ScaleBounds, desired: number | undefined, input: Omit<ScaleInput, 'desired' | 'bounds'>): ScaleStep {
  if (desired === undefined) return planWithoutSample({ ...input, bounds });
  if (desired === 0 && input.currentScale === 0 && isInactive(input.conditions) && input.settings.enableScaleToZero) {
    return report(0, 'already-at-zero');
  }
  return decideScaleToZero({ ...input, desired });
}

function planWithoutSample(input: Omit<ScaleInput, 'desired'>): ScaleStep {
  const floor = Math.max(effectiveMinScale(input.bounds), input.settings.enableScaleToZero ? 0 : 1);
  if (floor > input.currentScale) return apply(floor, 'raised-to-lower-bound');
  if (!isActivating(input.conditions)) return hold('metrics-not-collected');
  const timeout = input.settings.activationTimeoutMs ?? DEFAULT_ACTIVATION_TIMEOUT_MS;
  if (canFailActivation(input.conditions, input.now, timeout)) return hold('activation-timed-out-without-samples');
  return hold('activating', { requeueAfterMs: [timeout] });
}

/** A target that does not say how many replicas it wants runs one. */
export const DEFAULT_REPLICAS = 1;

export type PatchDecision =
  | { patch: false; current: number }
  | { patch: true; from: number; to: number };

export function decidePatch(desired: number, specReplicas: number | undefined): PatchDecision {
  const current = specReplicas ?? DEFAULT_REPLICAS;
  return desired === current ? { patch: false, current } : { patch: true, from: current, to: desired };
}
