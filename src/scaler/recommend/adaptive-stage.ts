/**
 * The adaptive policy's stage (src/scaler/policy/adaptive.ts), after Knative's windows and rates
 * and before `behavior`: the start-up delay learned from the raises, the headroom over the load
 * for that delay, then the scale-down evidence window. `policy: knative` passes through. Without
 * a load answer (no evidence, a fallback standing for the load) it keeps nothing and changes
 * nothing: no evidence is never turned into a fall.
 */
import type { DesiredScale } from '../../load/decider.js';
import type { TargetRecord, TargetRecordPatch } from '../read/target-record.js';
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
} from './adaptive.js';
import type { PolicyRule } from '../read/rule-names.js';
import type { SourcesContext } from './sources-view.js';
import { readJson } from '../read/record-json.js';

interface StageState {
  replicas: number | undefined;
  desired?: DesiredScale;
  boundBy?: string;
}

export interface AdaptiveStage {
  readonly name: 'adaptive';
  run(state: StageState, ctx: SourcesContext): { replicas: number | undefined; boundBy?: PolicyRule; changes?: TargetRecordPatch };
}

const isStartup = (v: unknown) => typeof v === 'object' && v !== null && Array.isArray((v as StartupState).observed) && (v as StartupState).observed.every((n) => typeof n === 'number');

/**
 * The row's form of the per-minute load: the first minute and every minute's value from it (a
 * minute without a sample holds the one before, as the headroom reads it), and the headroom as
 * last computed, from the minutes before `[0]` for a delay of `[1]` ms. It is computed once a
 * minute, over whole minutes: a target reconciled every few seconds pays for it once.
 */
interface StoredMinutes {
  s: number;
  v: number[];
  h?: [minute: number, delayMs: number, value: number];
}

const isNumbers = (v: unknown) => Array.isArray(v) && v.every((n) => typeof n === 'number');
const isMinutes = (v: unknown) => typeof v === 'object' && v !== null && typeof (v as StoredMinutes).s === 'number' && isNumbers((v as StoredMinutes).v) && ((v as StoredMinutes).h === undefined || (isNumbers((v as StoredMinutes).h) && (v as StoredMinutes).h!.length === 3));

function minutesOf(stored: StoredMinutes | undefined): LoadMinutes {
  return stored ? stored.v.map((v, i) => [stored.s + i, v] as const) : [];
}

function storedOf(minutes: LoadMinutes, headroom: StoredMinutes['h']): StoredMinutes {
  const values: number[] = [];
  for (let i = 0; i < minutes.length; i++) {
    const gap = i === 0 ? 0 : minutes[i]![0] - minutes[i - 1]![0] - 1;
    for (let g = 0; g < gap; g++) values.push(values.at(-1)!);
    values.push(minutes[i]![1]);
  }
  return { s: minutes[0]?.[0] ?? 0, v: values, ...(headroom ? { h: headroom } : {}) };
}

/** The headroom over the whole minutes before this one: the row's, when it was computed this minute for this delay. */
function headroomNow(stored: StoredMinutes | undefined, minutes: LoadMinutes, delayMs: number, windowMs: number, budget: number, now: number): NonNullable<StoredMinutes['h']> {
  const minute = Math.floor(now / 60_000);
  if (stored?.h && stored.h[0] === minute && stored.h[1] === delayMs) return stored.h;
  return [minute, delayMs, headroomFor(minutes.filter(([m]) => m < minute), delayMs, windowMs, budget)];
}

export const startupStateOf = (record: TargetRecord | undefined): StartupState => readJson(record?.startupDelay, EMPTY_STARTUP, isStartup);

/** The start-up delay a target's row says it has (status, the decision log). */
export function startupDelayIn(record: TargetRecord | undefined, settings: AdaptiveSettings): StartupDelay {
  return startupDelayOf(startupStateOf(record), settings.defaultStartupDelayMs);
}

/** The headroom the row last computed, in load units; undefined before the first minute. */
export function headroomIn(record: TargetRecord | undefined): number | undefined {
  return readJson<StoredMinutes | undefined>(record?.loadMinutes, undefined, isMinutes)?.h?.[2];
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
    const stored = readJson<StoredMinutes | undefined>(record?.loadMinutes, undefined, isMinutes);
    const minutes = recordLoadMinute(minutesOf(stored), now, desired.average);
    const windowMs = evidenceWindowMs(delay.ms, ctx.settings.desired.stableWindowMs);
    const headroom = headroomNow(stored, minutes, delay.ms, windowMs, settings.underProvisioningPercent, now);
    const out = adaptiveScale(state.replicas, { now: desired.average, level: recentLevel(minutes, windowMs, now), headroom: headroom[2] }, ctx.settings.desired.targetPerReplica);
    const nextStartup = observeStartup(startup, ctx.observation, out.replicas, now);
    return {
      replicas: out.replicas,
      ...(out.boundBy ? { boundBy: out.boundBy } : {}),
      changes: { loadMinutes: JSON.stringify(storedOf(minutes, headroom)), startupDelay: JSON.stringify(nextStartup) },
    };
  },
};
