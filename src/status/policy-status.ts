/**
 * A target's policy as `drover status` shows it (`targets[].policy`): its name, the start-up delay
 * it plans with and where that comes from, its budget (as configured and in force) and the
 * headroom last calibrated.
 * Pure: the configuration and the row in, plain data out.
 */
import type { TargetConfig } from '../config/schema.js';
import type { TargetRecord } from '../scaler/read/target-record.js';
import { adaptiveSettingsOf } from '../scaler/read/adaptive-settings.js';
import { budgetIn, headroomIn, startupDelayIn } from '../scaler/recommend/adaptive-stage.js';

export type PolicyStatus =
  | { name: 'knative' }
  | {
      name: 'adaptive';
      startupDelay: { seconds: number; from: 'default' | 'learned' };
      /**
       * The budget (percent of demand left unserved), the budget in force after what the target
       * really left unserved (percent), and the headroom last calibrated, in load units (null
       * before a whole minute).
       */
      headroom: { underProvisioning: number; inForce: number; load: number | null };
    };

export function policyStatus(target: TargetConfig, record: TargetRecord | undefined): PolicyStatus {
  const adaptive = adaptiveSettingsOf(target);
  if (!adaptive) return { name: 'knative' };
  const delay = startupDelayIn(record, adaptive);
  const headroom = headroomIn(record);
  return {
    name: 'adaptive',
    startupDelay: { seconds: Math.round(delay.ms / 1000), from: delay.from },
    headroom: {
      underProvisioning: adaptive.underProvisioningPercent,
      inForce: Math.round(budgetIn(record, adaptive) * 1000) / 1000,
      load: headroom === undefined ? null : Math.round(headroom * 100) / 100,
    },
  };
}

/** One line for people (`drover status`, the status page): the adaptive policy's delay, headroom and budget; none for knative. */
export function policyLine(policy: PolicyStatus): string | undefined {
  if (policy.name === 'knative') return undefined;
  const { startupDelay: delay, headroom } = policy;
  const room = headroom.load === null ? 'no headroom yet' : `headroom ${headroom.load}`;
  return `policy adaptive: start-up ${delay.seconds} s (${delay.from}), ${room}, budget ${headroom.underProvisioning} % of demand unserved (in force ${headroom.inForce} %)`;
}
