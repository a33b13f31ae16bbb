/**
 * The adaptive policy's stage (src/scaler/policy/adaptive.ts), after Knative's windows and rates
 * and before `behavior`: the start-up delay learned from the raises, the headroom over the load
 * for that delay, then the scale-down evidence window. `policy: knative` passes through. Without
 * a load answer (no evidence, a fallback standing for the load) it keeps nothing and changes
 * nothing: no evidence is never turned into a fall.
 */
import type { DesiredScale } from '../../load/decider.js';
import type { TargetRecord, TargetRecordPatch } from '../decide/target-record.js';
import {
  EMPTY_STARTUP,
  adaptiveScale,
  evidenceWindowMs,
  headroomFor,
  observeStartup,
  recentLevel,
  recordLoadMinute,
  startupDelayOf,
  type AdaptiveSettings,
  type LoadMinutes,
  type StartupDelay,
  type StartupState,
} from '../policy/adaptive.js';
import type { PolicyRule } from '../policy/rules.js';
import type { SourcesContext } from './sources-view.js';

interface StageState {
  replicas: number | undefined;
  desired?: DesiredScale;
  boundBy?: string;
}

export interface AdaptiveStage {
  readonly name: 'adaptive';
  run(state: StageState, ctx: SourcesContext): { replicas: number | undefined; boundBy?: PolicyRule; changes?: TargetRecordPatch };
}

function parsed<T>(text: string | undefined, fallback: T, valid: (v: unknown) => boolean): T {
  if (!text) return fallback;
  try {
    const v: unknown = JSON.parse(text);
    return valid(v) ? (v as T) : fallback;
  } catch {
    return fallback;
  }
}

const isStartup = (v: unknown) => typeof v === 'object' && v !== null && Array.isArray((v as StartupState).observed) && (v as StartupState).observed.every((n) => typeof n === 'number');
const isMinutes = (v: unknown) => Array.isArray(v) && v.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'number' && typeof e[1] === 'number');

export const startupStateOf = (record: TargetRecord | undefined): StartupState => parsed(record?.startupDelay, EMPTY_STARTUP, isStartup);

/** The start-up delay a target's row says it has (status, the decision log). */
export function startupDelayIn(record: TargetRecord | undefined, settings: AdaptiveSettings): StartupDelay {
  return startupDelayOf(startupStateOf(record), settings.defaultStartupDelayMs);
}

export const adaptiveStage: AdaptiveStage = {
  name: 'adaptive',
  run: (state, ctx) => {
    const settings = ctx.settings.policy?.adaptive;
    const desired = state.desired;
    if (!settings || state.replicas === undefined || desired?.kind !== 'known' || state.boundBy === 'FallbackActive') return { replicas: state.replicas };
    const { record, now } = ctx;
    const startup = startupStateOf(record);
    const delay = startupDelayOf(startup, settings.defaultStartupDelayMs);
    const minutes = recordLoadMinute(parsed<LoadMinutes>(record?.loadMinutes, [], isMinutes), now, desired.average);
    const windowMs = evidenceWindowMs(delay.ms, ctx.settings.desired.stableWindowMs);
    const headroom = headroomFor(minutes, delay.ms, windowMs, settings.underProvisioningPercent);
    const out = adaptiveScale(state.replicas, { now: desired.average, level: recentLevel(minutes, windowMs, now), headroom }, ctx.settings.desired.targetPerReplica);
    const nextStartup = observeStartup(startup, ctx.observation, out.replicas, now);
    return {
      replicas: out.replicas,
      ...(out.boundBy ? { boundBy: out.boundBy } : {}),
      changes: { loadMinutes: JSON.stringify(minutes), startupDelay: JSON.stringify(nextStartup) },
    };
  },
};
