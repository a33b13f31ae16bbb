/**
 * A target's policy as `drover status` shows it (`targets[].policy`): its name, the start-up delay
 * it plans with and where that comes from, its budget (as configured and in force), the
 * headroom last calibrated and the forecast's mode and floor.
 * Pure: the configuration and the row in, plain data out.
 */
import type { TargetConfig } from '../config/schema.js';
import type { TargetRecord } from '../scaler/read/target-record.js';
import { adaptiveSettingsOf } from '../scaler/read/adaptive-settings.js';
import { budgetIn, evidenceIn, forecastIn, headroomIn, startupDelayIn } from '../scaler/recommend/adaptive-stage.js';
import { delayWindows, youngLevelMinutes as levelMinutes, type ForecastMode } from '../scaler/recommend/adaptive.js';

/** The load the policy keeps is in replicas: the reconcile hands it its sources' demand so (targetSettings(target, 1)). */
const PER_REPLICA = 1;
const youngLevelMinutes = (delaySeconds: number) => levelMinutes(delayWindows(delaySeconds * 1000));

export type PolicyStatus =
  | { name: 'knative' }
  | {
      name: 'adaptive';
      startupDelay: { seconds: number; from: 'default' | 'learned' };
      /**
       * The budget (percent of demand left unserved), the budget in force after what the target
       * really left unserved and weighted by its last two hours' demand against its day's
       * (percent: what the calibration aims at), and the headroom last calibrated, in load units (null
       * until the target has two hours of load and its start-up delay: a young target follows the
       * mean of its last two start-up delays instead).
       */
      headroom: { underProvisioning: number; inForce: number; load: number | null };
      /** How long the recommendation must stay below the scale before a fall: the window calibrated with the headroom (until then a young target's: 8 start-up delays, half the longest, or the fall-to window's 6 for the longest start-ups). */
      scaleDownEvidence: { minutes: number };
      /** The forecast's mode and the floor it sets on the row's last minute, in replicas (null: mode off, or no day or week of load yet). */
      forecast: { mode: ForecastMode; floor: number | null };
    };

export function policyStatus(target: TargetConfig, record: TargetRecord | undefined): PolicyStatus {
  const adaptive = adaptiveSettingsOf(target);
  if (!adaptive) return { name: 'knative' };
  const delay = startupDelayIn(record, adaptive);
  const headroom = headroomIn(record, adaptive);
  const floor = forecastIn(record, adaptive, PER_REPLICA);
  return {
    name: 'adaptive',
    startupDelay: { seconds: Math.round(delay.ms / 1000), from: delay.from },
    headroom: {
      underProvisioning: adaptive.underProvisioningPercent,
      inForce: Math.round(budgetIn(record, adaptive, PER_REPLICA) * 1000) / 1000,
      load: headroom === undefined ? null : Math.round(headroom * 100) / 100,
    },
    scaleDownEvidence: { minutes: evidenceIn(record, adaptive) },
    forecast: { mode: adaptive.forecast, floor: floor ?? null },
  };
}

/** One line for people (`drover status`, the status page): the adaptive policy's delay, headroom, budget and forecast; none for knative. */
export function policyLine(policy: PolicyStatus): string | undefined {
  if (policy.name === 'knative') return undefined;
  const { startupDelay: delay, headroom, scaleDownEvidence, forecast } = policy;
  const room = headroom.load === null ? `no headroom yet (the level is the last ${youngLevelMinutes(delay.seconds)} min until two hours of load)` : `headroom ${headroom.load}`;
  const line = `policy adaptive: start-up ${delay.seconds} s (${delay.from}), ${room}, budget ${headroom.underProvisioning} % of demand unserved (in force ${headroom.inForce} %), a fall after ${scaleDownEvidence.minutes} min lower`;
  if (forecast.mode === 'off') return line;
  return `${line}, forecast ${forecast.mode}: ${forecast.floor === null ? 'no floor yet (a day of load first)' : `floor ${forecast.floor}`}`;
}
