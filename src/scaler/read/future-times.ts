/**
 * Times from the future are clamped, not honoured. A host whose clock ran ahead stores times
 * ahead of every other host's `now`: an Active condition's transition, load samples, HPA's
 * recommendations and scale events. Read as they are, they would hold a stable window, a
 * cooldown or a down window shut until the real clock caught up (an hour, for an hour's skew),
 * and a future sample would sit outside every window. The plan reads each such time as `now`
 * at most; what the plan writes back carries the clamped time, so the freeze ends there.
 */
import type { DesiredInput } from '../../load/decider.js';
import { SampleWindow } from '../../load/sample-window.js';
import type { Sample } from '../../load/samples.js';
import type { TargetRecord } from './target-record.js';

export function clampTime(at: number, now: number): number {
  return at > now ? now : at;
}

/** The record's own times that windows and cooldowns count from. */
const RECORD_TIMES = [
  'activeSince',
  'lastScaledAt',
  'activatorSeenSince',
  'wakeRequestedAt',
  'lastActivationAt',
  'panicStartedAt',
  'panicLastOverAt',
  'pausedAt',
  'lastActiveAt',
  'adoptedAt',
  'reconciledAt',
] as const satisfies readonly (keyof TargetRecord)[];

/** The record with every time (and the behaviour history's) no later than `now`; the same object when none was. */
export function clampRecordTimes(record: TargetRecord | undefined, now: number): TargetRecord | undefined {
  if (!record) return record;
  let out: TargetRecord | undefined;
  for (const key of RECORD_TIMES) {
    const at = record[key];
    if (typeof at === 'number' && at > now) (out ??= { ...record })[key] = now;
  }
  const history = clampBehaviorHistory(record.behaviorHistory, now);
  if (history !== record.behaviorHistory) (out ??= { ...record }).behaviorHistory = history;
  return out ?? record;
}

/** The stored behaviour history's recommendation and event times clamped; the same text when none lay ahead or it does not read. */
export function clampBehaviorHistory(text: string | undefined, now: number): string | undefined {
  if (!text) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof parsed !== 'object' || parsed === null) return text;
  let changed = false;
  const clampList = (list: unknown) =>
    Array.isArray(list)
      ? list.map((e: unknown) => {
          if (typeof e !== 'object' || e === null || typeof (e as { at?: unknown }).at !== 'number' || (e as { at: number }).at <= now) return e;
          changed = true;
          return { ...e, at: now };
        })
      : list;
  const state = parsed as Record<string, unknown>;
  const out = { ...state, ...('recommendations' in state ? { recommendations: clampList(state.recommendations) } : {}), upEvents: clampList(state.upEvents), downEvents: clampList(state.downEvents) };
  return changed ? JSON.stringify(out) : text;
}

/** Samples with future times read as taken `now`; a window (or array) with none ahead is passed on as it is. */
export function clampSamples(samples: DesiredInput['samples'], now: number): DesiredInput['samples'] {
  if (samples instanceof SampleWindow) {
    const newest = samples.newestAt;
    return newest === undefined || newest <= now ? samples : SampleWindow.from(clampSampleList(samples.toArray(), now), samples.capacity);
  }
  if (Array.isArray(samples)) return samples.some((s) => s.at > now) ? clampSampleList(samples as readonly Sample[], now) : samples;
  return samples;
}

function clampSampleList(samples: readonly Sample[], now: number): Sample[] {
  return samples.map((s) => (s.at > now ? { at: now, value: s.value } : s));
}
