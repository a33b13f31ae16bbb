/**
 * Whether a target whose desired scale is 0 may really go to zero now.
 *
 * Going to zero is only safe once requests have somewhere to wait: the activator must be in
 * front of the target (probed), and must have been there long enough for requests already in
 * flight to have been routed through it (the grace period). Before that the target is held:
 *
 *  - scale to zero disabled: keep one replica;
 *  - activating (Active Unknown): wait for the activation, but give up after the activation
 *    timeout and let it go to zero, so a target that can never start does not run forever
 *    (only with a load sample: see planScaleWithin for the desired scale that is not known);
 *  - ready (Ready True): hold one replica for the rest of the stable window, then answer 0
 *    *without applying it*, which marks the target inactive and puts the activator in front;
 *  - otherwise (inactive): probe the activator synchronously; once it answers, apply 0 when
 *    the target has been inactive strictly longer than the grace period or the activator has
 *    been seen in front for the whole grace period, else wait for the remainder; when the probe
 *    fails, offer an asynchronous probe that re-runs the decision when the activator appears.
 *
 * The synchronous probe is I/O, so the decision is taken in two steps: without a probe result
 * the inactive branch answers `{ kind: 'probe' }`, and the shell calls again with `probe` set.
 */
import {
  activeFor,
  canFailActivation,
  canScaleToZero,
  isActivating,
  isReady,
  type TargetConditions,
} from '../read/conditions.js';

/** Progress deadline (10 min) plus a 10 s buffer, as the seed. */
export const DEFAULT_ACTIVATION_TIMEOUT_MS = 610_000;

export interface ScaleToZeroSettings {
  enableScaleToZero: boolean;
  stableWindowMs: number;
  gracePeriodMs: number;
  /** Defaults to DEFAULT_ACTIVATION_TIMEOUT_MS. */
  activationTimeoutMs?: number;
}

export interface SyncProbeResult {
  ok: boolean;
}

export type ScaleReason =
  | 'adopted'
  | 'metrics-not-collected'
  | 'raised-to-lower-bound'
  | 'activation-timed-out-without-samples'
  | 'desired-nonzero'
  | 'scale-to-zero-disabled'
  | 'activation-timed-out'
  | 'activating'
  | 'stable-window-elapsed'
  | 'stable-window-pending'
  | 'grace-period-elapsed'
  | 'activator-backed-for-grace-period'
  | 'grace-period-pending'
  | 'activator-not-in-path'
  | 'already-at-zero'
  // A target that sleeps without an activator (zero/sleep.ts):
  | 'idle-at-zero'
  | 'cooldown-pending'
  | 'step-to-zero'
  | 'cooldown-elapsed'
  | 'paused';

interface PlanCommon {
  /** One delayed re-enqueue of this target per entry, after that many ms. */
  requeueAfterMs: number[];
  /** Start an asynchronous activator probe (a no-op if one is already in flight). */
  offerAsyncProbe: boolean;
  reason: ScaleReason;
}

/**
 * What to do with the target's scale:
 *  - `apply`: write `scale` (when it differs from the target's own);
 *  - `report`: `scale` is the decided scale but is not written (0 that marks a target
 *    inactive, or waits for the activator and the grace period);
 *  - `hold`: no scale is decided (no load sample, activating): leave the target as it is.
 */
export type ScalePlan =
  | (PlanCommon & { kind: 'apply'; scale: number })
  | (PlanCommon & { kind: 'report'; scale: number })
  | (PlanCommon & { kind: 'hold' });

/** The scale a plan decided, or 'unknown' for a hold. */
export function plannedScale(plan: ScalePlan): number | 'unknown' {
  return plan.kind === 'hold' ? 'unknown' : plan.scale;
}

export type ScaleStep = { kind: 'plan'; plan: ScalePlan } | { kind: 'probe' };

export interface ScaleToZeroInput {
  /** Desired scale, already within bounds. */
  desired: number;
  conditions: TargetConditions;
  settings: ScaleToZeroSettings;
  /** When the activator was first seen in front of the target, null if it is not. */
  activatorSeenSince: number | null;
  /** The synchronous probe's answer, once a first call asked for it. */
  probe?: SyncProbeResult;
  now: number;
}

type PlanExtra = { requeueAfterMs?: number[]; offerAsyncProbe?: boolean };

function common(reason: ScaleReason, extra: PlanExtra): PlanCommon {
  return { requeueAfterMs: extra.requeueAfterMs ?? [], offerAsyncProbe: extra.offerAsyncProbe ?? false, reason };
}

export function apply(scale: number, reason: ScaleReason, extra: PlanExtra = {}): ScaleStep {
  return { kind: 'plan', plan: { kind: 'apply', scale, ...common(reason, extra) } };
}

export function report(scale: number, reason: ScaleReason, extra: PlanExtra = {}): ScaleStep {
  return { kind: 'plan', plan: { kind: 'report', scale, ...common(reason, extra) } };
}

export function hold(reason: ScaleReason, extra: PlanExtra = {}): ScaleStep {
  return { kind: 'plan', plan: { kind: 'hold', ...common(reason, extra) } };
}

export function decideScaleToZero(input: ScaleToZeroInput): ScaleStep {
  const { desired, conditions, settings, now } = input;
  if (desired !== 0) return apply(desired, 'desired-nonzero');
  if (!settings.enableScaleToZero) return apply(1, 'scale-to-zero-disabled');

  if (isActivating(conditions)) {
    const timeout = settings.activationTimeoutMs ?? DEFAULT_ACTIVATION_TIMEOUT_MS;
    if (canFailActivation(conditions, now, timeout)) return apply(desired, 'activation-timed-out');
    return hold('activating', { requeueAfterMs: [timeout] });
  }

  if (isReady(conditions)) {
    // Counted from the Active condition's last transition: a target active for longer than the
    // stable window is marked inactive on the first idle reconcile.
    const active = activeFor(conditions, now);
    // Not applied: reporting 0 is what marks the target inactive and brings the activator in.
    if (active >= settings.stableWindowMs) return report(desired, 'stable-window-elapsed');
    return apply(1, 'stable-window-pending', { requeueAfterMs: [settings.stableWindowMs - active] });
  }

  if (input.probe === undefined) return { kind: 'probe' };
  if (!input.probe.ok) return report(desired, 'activator-not-in-path', { offerAsyncProbe: true });

  if (canScaleToZero(conditions, now, settings.gracePeriodMs)) {
    return apply(desired, 'grace-period-elapsed');
  }
  const backedFor = input.activatorSeenSince === null ? 0 : now - input.activatorSeenSince;
  const remaining = settings.gracePeriodMs - backedFor;
  if (remaining <= 0) return apply(desired, 'activator-backed-for-grace-period');
  return report(desired, 'grace-period-pending', { requeueAfterMs: [remaining] });
}
