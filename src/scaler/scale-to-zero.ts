/**
 * Whether a target whose desired scale is 0 may really go to zero now.
 *
 * Going to zero is only safe once requests have somewhere to wait: the activator must be in
 * front of the target (probed), and must have been there long enough for requests already in
 * flight to have been routed through it (the grace period). Before that the target is held:
 *
 *  - scale to zero disabled: keep one replica;
 *  - activating (Active Unknown): wait for the activation, but give up after the activation
 *    timeout and let it go to zero, so a target that can never start does not run forever;
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
} from './conditions.js';

/** Progress deadline (10 min) plus a 10 s buffer, as the seed. */
export const DEFAULT_ACTIVATION_TIMEOUT_MS = 610_000;

/** Sentinel scale for "leave it alone": activating, and the desired scale is not known yet. */
const SCALE_UNKNOWN = -1;

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
  | 'metrics-not-collected'
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
  | 'already-at-zero';

export interface ScalePlan {
  /** The scale to report (and to apply when `apply`); -1 while activating. */
  scale: number;
  /** Whether `scale` should be written to the target (when it differs from the current one). */
  apply: boolean;
  /** One delayed re-enqueue of this target per entry, after that many ms. */
  requeueAfterMs: number[];
  /** Start an asynchronous activator probe (a no-op if one is already in flight). */
  offerAsyncProbe: boolean;
  reason: ScaleReason;
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

export function plan(
  scale: number,
  apply: boolean,
  reason: ScaleReason,
  extra: { requeueAfterMs?: number[]; offerAsyncProbe?: boolean } = {},
): ScaleStep {
  return {
    kind: 'plan',
    plan: {
      scale,
      apply,
      requeueAfterMs: extra.requeueAfterMs ?? [],
      offerAsyncProbe: extra.offerAsyncProbe ?? false,
      reason,
    },
  };
}

export function decideScaleToZero(input: ScaleToZeroInput): ScaleStep {
  const { desired, conditions, settings, now } = input;
  if (desired !== 0) return plan(desired, true, 'desired-nonzero');
  if (!settings.enableScaleToZero) return plan(1, true, 'scale-to-zero-disabled');

  if (isActivating(conditions)) {
    const timeout = settings.activationTimeoutMs ?? DEFAULT_ACTIVATION_TIMEOUT_MS;
    if (canFailActivation(conditions, now, timeout)) return plan(desired, true, 'activation-timed-out');
    return plan(SCALE_UNKNOWN, false, 'activating', { requeueAfterMs: [timeout] });
  }

  if (isReady(conditions)) {
    const active = activeFor(conditions, now);
    // Not applied: reporting 0 is what marks the target inactive and brings the activator in.
    if (active >= settings.stableWindowMs) return plan(desired, false, 'stable-window-elapsed');
    return plan(1, true, 'stable-window-pending', { requeueAfterMs: [settings.stableWindowMs - active] });
  }

  if (input.probe === undefined) return { kind: 'probe' };
  if (!input.probe.ok) return plan(desired, false, 'activator-not-in-path', { offerAsyncProbe: true });

  if (canScaleToZero(conditions, now, settings.gracePeriodMs)) {
    return plan(desired, true, 'grace-period-elapsed');
  }
  const backedFor = input.activatorSeenSince === null ? 0 : now - input.activatorSeenSince;
  const remaining = settings.gracePeriodMs - backedFor;
  if (remaining <= 0) return plan(desired, true, 'activator-backed-for-grace-period');
  return plan(desired, false, 'grace-period-pending', { requeueAfterMs: [remaining] });
}
