/**
 * A target's settings as the decisions take them, and what a reconcile observed of it.
 */
import { DEFAULT_POLL_INTERVAL_MS, type TargetConfig } from '../../config/schema.js';
import type { DeciderSettings } from '../../load/decider.js';
import type { ScaleBounds } from '../limit/bounds.js';
import type { ScaleToZeroSettings } from '../zero/scale-to-zero.js';
import { policySettings, type PolicySettings } from './policy-settings.js';
import { adaptiveSettingsOf } from './adaptive-settings.js';
import { isQueueDriven, pollIntervalOf } from '../../load/sources.js';

export interface TargetSettings {
  /** An http or queue source's poll period: each reconcile asks for the next aligned one. */
  pollIntervalMs?: number;
  /**
   * Every source is `queue` or `push` and no activator is configured: the target goes to zero
   * after its cooldown and wakes on an active source (KEDA), not by Knative's activator rules.
   */
  sleepsWithoutActivator?: boolean;
  /** `paused: true` in the configuration: wins over `drover resume`. */
  paused?: boolean;
  bounds: ScaleBounds;
  scaleToZero: ScaleToZeroSettings;
  desired: DeciderSettings;
  /** The policy stages' knobs (behavior, scaleDownDelay, initial and activation scale, schedules). */
  policy?: PolicySettings;
}

/**
 * `targetPerReplica` is what the windows divide the load by: 1 when the pass gives the plan its
 * sources (their combined demand is in replicas already, as every reconcile and replay does);
 * a plan fed one window of raw samples gives its source's.
 */
export function targetSettings(target: TargetConfig, targetPerReplica: number): TargetSettings {
  const stableWindowMs = target.scaleToZero.stableWindow;
  const pollIntervalMs = pollIntervalOf(target.load, DEFAULT_POLL_INTERVAL_MS);
  const sleeps = target.scaleToZero.enabled && !target.activator && isQueueDriven(target.load);
  return {
    ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
    ...(sleeps ? { sleepsWithoutActivator: true } : {}),
    ...(target.paused ? { paused: true } : {}),
    bounds: { minScale: target.minScale, maxScale: target.maxScale },
    scaleToZero: {
      enableScaleToZero: target.scaleToZero.enabled,
      stableWindowMs,
      gracePeriodMs: target.scaleToZero.gracePeriod,
      activationTimeoutMs: target.activationTimeout,
    },
    desired: {
      targetPerReplica,
      stableWindowMs,
      maxScaleUpRate: target.maxScaleUpRate,
      maxScaleDownRate: target.maxScaleDownRate,
      panic: { enabled: target.panic.enabled, windowMs: target.panic.window ?? stableWindowMs / 10, thresholdPercent: target.panic.threshold },
    },
    policy: withAdaptive(target, policySettings({
      ...(target.load ? { load: target.load } : {}),
      cooldown: target.cooldown,
      fallback: target.fallback,
      behavior: target.behavior,
      scaleDownDelay: target.scaleDownDelay,
      initialScale: target.initialScale,
      activationScale: target.activationScale,
      schedules: target.schedules,
    })),
  };
}

function withAdaptive(target: TargetConfig, policy: PolicySettings): PolicySettings {
  const adaptive = adaptiveSettingsOf(target);
  return adaptive ? { ...policy, adaptive } : policy;
}

/** The target as seen now (or, when it could not be read, as last stored). */
export interface Observation {
  /** Its own scale: spec replicas or capacity (a workload without one runs 1). */
  scale: number;
  /** Ready replicas, running instances. */
  ready: number;
  /** A pool's deallocated VMs, which a raise starts before it creates any (its warm buffer). */
  startable?: number;
}

