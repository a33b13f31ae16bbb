/**
 * A target's settings as the decisions take them, and what a reconcile observed of it.
 */
import { DEFAULT_POLL_INTERVAL_MS, type TargetConfig } from '../../config/schema.js';
import type { DeciderSettings } from '../../load/decider.js';
import type { ScaleBounds } from './bounds.js';
import type { ScaleToZeroSettings } from './scale-to-zero.js';
import { policySettings, type PolicySettings } from '../policy/settings.js';

export interface TargetSettings {
  /** An http or queue source's poll period: each reconcile asks for the next aligned one. */
  pollIntervalMs?: number;
  /** `paused: true` in the configuration: wins over `drover resume`. */
  paused?: boolean;
  bounds: ScaleBounds;
  scaleToZero: ScaleToZeroSettings;
  desired: DeciderSettings;
  /** The policy stages' knobs (behavior, scaleDownDelay, initial and activation scale, schedules). */
  policy?: PolicySettings;
}

/** `targetPerReplica` comes from the load source (1 for a target without one). */
export function targetSettings(target: TargetConfig, targetPerReplica: number): TargetSettings {
  const stableWindowMs = target.scaleToZero.stableWindow;
  const load = target.load;
  return {
    ...(load && load.source !== 'push' ? { pollIntervalMs: load.pollInterval ?? DEFAULT_POLL_INTERVAL_MS } : {}),
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
    policy: policySettings({
      fallback: target.fallback,
      behavior: target.behavior,
      scaleDownDelay: target.scaleDownDelay,
      initialScale: target.initialScale,
      activationScale: target.activationScale,
      schedules: target.schedules,
    }),
  };
}

/** The target as seen now (or, when it could not be read, as last stored). */
export interface Observation {
  /** Its own scale: spec replicas or capacity (a workload without one runs 1). */
  scale: number;
  /** Ready replicas, running instances. */
  ready: number;
}

