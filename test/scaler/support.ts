// Shared by the scaler tests that drive decideTarget and runScaleStep with plain settings.
import type { TargetSettings } from '../../src/scaler/decide/decide-target.js';

/**
 * Settings of a target with minScale 1, scale to zero on, 10 per replica and panic off, over a
 * stable window of `stableWindowMs`: the grace period is half of it and the panic window a tenth,
 * e.g. 60 s → 30 s grace, 6 s panic window.
 */
export function settingsOver(stableWindowMs: number): TargetSettings {
  return {
    bounds: { minScale: 1, maxScale: 0 },
    scaleToZero: { enableScaleToZero: true, stableWindowMs, gracePeriodMs: stableWindowMs / 2 },
    desired: {
      targetPerReplica: 10,
      stableWindowMs,
      maxScaleUpRate: 1000,
      maxScaleDownRate: 2,
      panic: { enabled: false, windowMs: stableWindowMs / 10, thresholdPercent: 200 },
    },
  };
}
