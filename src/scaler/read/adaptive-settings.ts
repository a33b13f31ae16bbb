/**
 * A target's adaptive-policy knobs from its configuration. Apart from target-settings.ts so that
 * status can show them without loading the configuration's schema (and the cron parser its
 * schedules bring) at start-up.
 */
import type { TargetConfig } from '../../config/schema.js';
import type { AdaptiveSettings } from '../recommend/adaptive.js';

/** The kind's start until the target's own raises were seen: a VM created, a pod made ready. */
export const DEFAULT_STARTUP_DELAY_MS = { pool: 180_000, kubernetes: 30_000 } as const;

/** The adaptive policy's knobs of a target; undefined for `policy: knative`. */
export function adaptiveSettingsOf(target: TargetConfig): AdaptiveSettings | undefined {
  if (target.policy === 'knative') return undefined;
  const ref = target.scaleTargetRef;
  const defaultStartupDelayMs = 'kind' in ref && ref.kind === 'Pool' ? DEFAULT_STARTUP_DELAY_MS.pool : DEFAULT_STARTUP_DELAY_MS.kubernetes;
  return { defaultStartupDelayMs, underProvisioningPercent: target.headroom.underProvisioning, forecast: target.forecast.mode };
}
