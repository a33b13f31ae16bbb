/**
 * A target's policy as `drover status` shows it (`targets[].policy`): its name, the start-up delay
 * it plans with and where that comes from, its headroom budget and the headroom last computed.
 * Pure: the configuration and the row in, plain data out.
 */
import type { TargetConfig } from '../config/schema.js';
import type { TargetRecord } from '../scaler/read/target-record.js';
import { adaptiveSettingsOf } from '../scaler/read/adaptive-settings.js';
import { headroomIn, startupDelayIn } from '../scaler/recommend/adaptive-stage.js';

export type PolicyStatus =
  | { name: 'knative' }
  | {
      name: 'adaptive';
      startupDelay: { seconds: number; from: 'default' | 'learned' };
      /** The budget (percent of time under demand) and the headroom last computed, in load units (null before a whole minute). */
      headroom: { underProvisioning: number; load: number | null };
    };

export function policyStatus(target: TargetConfig, record: TargetRecord | undefined): PolicyStatus {
  const adaptive = adaptiveSettingsOf(target);
  if (!adaptive) return { name: 'knative' };
  const delay = startupDelayIn(record, adaptive);
  const headroom = headroomIn(record);
  return {
    name: 'adaptive',
    startupDelay: { seconds: Math.round(delay.ms / 1000), from: delay.from },
    headroom: { underProvisioning: adaptive.underProvisioningPercent, load: headroom === undefined ? null : Math.round(headroom * 100) / 100 },
  };
}
