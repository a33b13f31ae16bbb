/**
 * One scale step for a target, as pure decisions around two pieces of I/O the shell performs:
 *
 *   planScale(input)              → { kind: 'probe' } (probe, then call again with `probe`)
 *                                 | { kind: 'plan', plan }
 *   decidePatch(plan.scale, spec) → patch or not, once the shell has read the target's scale
 *                                   (only when plan.apply)
 *
 * A negative desired scale means the load source has no sample yet. Unless the target is
 * activating (where the activation timeout must still run), nothing is decided on it: a metrics
 * outage must never scale anything, least of all to zero.
 */
import { applyBounds, type ScaleBounds } from './bounds.js';
import { isActivating, type TargetConditions } from './conditions.js';
import {
  decideScaleToZero,
  plan,
  type ScaleStep,
  type ScaleToZeroSettings,
  type SyncProbeResult,
} from './scale-to-zero.js';

export interface ScaleInput {
  /** From the load source; -1 while no sample has been collected. */
  desired: number;
  bounds: ScaleBounds;
  conditions: TargetConditions;
  settings: ScaleToZeroSettings;
  /** When the activator was first seen in front of the target, null if it is not. */
  activatorSeenSince: number | null;
  /** Set on the second call, after a first call answered `{ kind: 'probe' }`. */
  probe?: SyncProbeResult;
  now: number;
}

export function planScale(input: ScaleInput): ScaleStep {
  if (input.desired < 0 && !isActivating(input.conditions)) {
    return plan(input.desired, false, 'metrics-not-collected');
  }
  return decideScaleToZero({ ...input, desired: applyBounds(input.bounds, input.desired) });
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
