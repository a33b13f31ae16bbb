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
import { isActivating, isInactive, type TargetConditions } from './conditions.js';
import {
  decideScaleToZero,
  plan,
  type ScalePlan,
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
  /**
   * The target's own scale when the shell has read it. An inactive target already at zero
   * that should stay there needs no probe: probing would only start async probes that can
   * change nothing, over and over while the activator is away.
   */
  currentScale?: number;
  now: number;
}

export function planScale(input: ScaleInput): ScaleStep {
  if (input.desired < 0 && !isActivating(input.conditions)) {
    return plan(input.desired, false, 'metrics-not-collected');
  }
  const desired = applyBounds(input.bounds, input.desired);
  if (desired === 0 && input.currentScale === 0 && isInactive(input.conditions)) return plan(0, false, 'already-at-zero');
  return decideScaleToZero({ ...input, desired });
}

/**
 * planScale with its synchronous probe carried out: the probe runs only when the decision asks
 * for it, and the decision is taken again with its result.
 */
export async function planWithProbe<P extends SyncProbeResult>(input: Omit<ScaleInput, 'probe'>, probe: () => Promise<P>): Promise<{ plan: ScalePlan; probe?: P }> {
  const first = planScale(input);
  if (first.kind === 'plan') return { plan: first.plan };
  const result = await probe();
  const second = planScale({ ...input, probe: result });
  if (second.kind === 'probe') throw new Error('the scale decision asked for a second probe');
  return { plan: second.plan, probe: result };
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
