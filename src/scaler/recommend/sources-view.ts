/**
 * What the pipeline's stages read of a target's sources, computed once a plan: each source's
 * consecutive failures (its health, kept in the target's record), the sources combined into one
 * demand window in replicas (max/min/sum or the formula over the answering sources; the
 * fallback's replicas once every source is past its threshold), whether a source is failing
 * while the fallback is not engaged, and whether any source is active (strictly above its
 * activation threshold).
 *
 * A target with one source (`load: { source, … }`) keeps its single window, its targetPerReplica
 * and its `sourceFailures` field; several sources (`load.sources`) are read from
 * `sources`, their health from `sourceHealth`.
 */
import { replicasFor, type DesiredInput, type LoadWindow } from '../../load/decider.js';
import { SampleWindow } from '../../load/sample-window.js';
import { measuredOf, type TargetRecord, type TargetRecordPatch } from '../read/target-record.js';
import type { Observation, TargetSettings } from '../read/target-settings.js';
import { NO_POLICY } from '../read/policy-settings.js';
import { anySourceActive, combinedWindow, fallbackEngaged, nextFailures, sourcesDemand, type Combine, type SourceReading, type SourceSpec, type SourcesDemand } from './sources.js';

/** One source's samples and this reconcile's read of it. */
export interface SourceObservation {
  name: string;
  window: DesiredInput['samples'];
  /** A push source is a gauge: an empty window reads as its last value. */
  holdLatest: boolean;
  /** This reconcile's read: answered, failed, or none made (a push source between pushes). */
  read: 'ok' | 'failed' | 'none';
  /** Why it failed, for status (`sources[].error`). */
  error?: string;
  /** When the data it answered with was measured (azureMonitor), for status (`sources[].measuredAt`). */
  measuredAt?: number;
}

/** The part of the pipeline's context the view reads. */
export interface SourcesContext {
  record: TargetRecord | undefined;
  observation: Observation;
  /** The target's load samples: a `SampleWindow`, an array, or anything with its `average`. */
  samples: DesiredInput['samples'];
  /** The source is a gauge (push): an empty window reads as its last value. */
  holdLatest: boolean;
  /** This reconcile's read of the load source failed (a source's health; its fallback). */
  loadFailed?: boolean;
  /** A target with several sources: each one's samples and read (`samples` then goes unread). */
  sources?: readonly SourceObservation[];
  settings: TargetSettings;
  now: number;
}

export interface SourcesView {
  /** Consecutive failures by source, after this reconcile's reads. */
  failures: Record<string, number>;
  /** The record fields that keep them. */
  healthChanges: TargetRecordPatch;
  /** Several sources as one window of replicas; undefined for one source (its own samples are read). */
  combined?: LoadWindow;
  /** The replicas the sources ask for over the stable window; undefined: no evidence. */
  replicas: number | undefined;
  /** A source failing while the fallback is not engaged (past its threshold or not): no scale-down (HPA). */
  failing: boolean;
  /** Every source failing past the fallback's threshold: the fallback's replicas stand for the load. */
  allFallback: boolean;
  /** A source is strictly above its activation threshold (or the fallback is engaged). */
  active: boolean;
}

const views = new WeakMap<object, SourcesView>();

export function sourcesView(ctx: SourcesContext): SourcesView {
  let view = views.get(ctx);
  if (!view) views.set(ctx, (view = ctx.sources ? severalView(ctx, ctx.sources) : singleView(ctx)));
  return view;
}

function singleView(ctx: SourcesContext): SourcesView {
  const policy = ctx.settings.policy ?? NO_POLICY;
  const previous = ctx.record?.sourceFailures ?? 0;
  const failures = nextFailures(previous, ctx.loadFailed ? 'failed' : 'ok');
  const engaged = fallbackEngaged(policy.fallback, failures);
  const { stableWindowMs, targetPerReplica } = ctx.settings.desired;
  const average = averageOf(ctx.samples, ctx.now, stableWindowMs, ctx.holdLatest);
  const spec = policy.sources[0];
  const latest = latestOf(ctx.samples, ctx.now, stableWindowMs, ctx.holdLatest);
  return {
    failures: { [spec?.name ?? 'load']: failures },
    healthChanges: failures === previous ? {} : { sourceFailures: failures === 0 ? undefined : failures },
    replicas: average === undefined ? undefined : replicasFor(average, targetPerReplica),
    failing: ctx.loadFailed === true && !engaged,
    allFallback: engaged,
    active: engaged || (failures === 0 && latest !== undefined && latest > (spec?.activationThreshold ?? 0)),
  };
}

function severalView(ctx: SourcesContext, sources: readonly SourceObservation[]): SourcesView {
  const policy = ctx.settings.policy ?? NO_POLICY;
  const stored = healthOf(ctx.record);
  // Own properties only: a source may be named `constructor` or `__proto__`.
  const failures = Object.fromEntries(sources.map((s) => [s.name, nextFailures(Object.hasOwn(stored, s.name) ? stored[s.name]! : 0, s.read)]));
  const rest = { combine: policy.combine, fallback: policy.fallback, current: ctx.observation.scale };
  const { now } = ctx;
  const { stableWindowMs } = ctx.settings.desired;
  const asTotal = totalOf(policy.combine, ctx.observation.ready);
  const combined = combinedWindow(
    sources.map((s) => {
      const spec = specOf(ctx.settings, s.name);
      return { spec, window: asTotal(spec, windowOf(s.window)), holdLatest: s.holdLatest, failures: failures[s.name] ?? 0 };
    }),
    rest,
  );
  const readings = (value: (s: SourceObservation) => number | undefined): SourceReading[] => sources.map((s) => ({ name: s.name, value: value(s), failures: failures[s.name] ?? 0 }));
  const total = (s: SourceObservation) => asTotal(specOf(ctx.settings, s.name), windowOf(s.window));
  const demand: SourcesDemand = sourcesDemand({ ...rest, specs: policy.sources, readings: readings((s) => total(s).average(now, stableWindowMs, s.holdLatest)) });
  const text = encodeHealth(failures);
  const errors = encodeErrors(sources);
  const measured = encodeMeasured(sources, measuredOf(ctx.record));
  const unchanged = text === ctx.record?.sourceHealth && errors === ctx.record?.sourceErrors && ctx.record?.sourceFailures === undefined;
  return {
    failures,
    healthChanges: {
      ...(unchanged ? {} : { sourceHealth: text, sourceErrors: errors, sourceFailures: undefined }),
      ...(measured === ctx.record?.sourceMeasuredAt ? {} : { sourceMeasuredAt: measured }),
    },
    combined,
    replicas: demand.kind === 'known' ? replicasFor(demand.demand, 1) : undefined,
    failing: demand.failing.length > 0,
    allFallback: demand.fallback.length === sources.length,
    active: anySourceActive({ ...rest, specs: policy.sources, readings: readings((s) => latestOf(s.window, now, stableWindowMs, s.holdLatest)) }),
  };
}

/**
 * A source's window as the combine reads it. With max, min or sum each source gives its own
 * replica count, so a `perReplica` value (an average over the ready replicas: CPU %, latency) is
 * made a total first, ready × value (KEDA's Value target); with no ready replica it says nothing
 * of how many are needed, so it is no reading. A formula reads every value as it was read.
 */
function totalOf(combine: Combine, ready: number): (spec: SourceSpec, window: LoadWindow) => LoadWindow {
  return (spec, window) => {
    if (spec.metricType !== 'perReplica' || combine.kind === 'formula') return window;
    return {
      average(now, windowMs, holdLatest) {
        const value = window.average(now, windowMs, holdLatest);
        return value === undefined || ready <= 0 ? undefined : value * ready;
      },
    };
  };
}

function specOf(settings: TargetSettings, name: string) {
  const spec = (settings.policy ?? NO_POLICY).sources.find((s) => s.name === name);
  if (!spec) throw new Error(`no source named "${name}" in the target's settings`);
  return spec;
}

function windowOf(samples: DesiredInput['samples']): LoadWindow {
  return 'average' in samples ? samples : SampleWindow.from(samples, Math.max(1, samples.length));
}

function averageOf(samples: DesiredInput['samples'], now: number, windowMs: number, holdLatest: boolean): number | undefined {
  return windowOf(samples).average(now, windowMs, holdLatest);
}

/**
 * A source's value for activation: its newest sample in the stable window (a gauge's newest
 * however old), as KEDA reads a scaler's current value; a window that only averages reads as its average.
 */
function latestOf(samples: DesiredInput['samples'], now: number, windowMs: number, holdLatest: boolean): number | undefined {
  const window = samples instanceof SampleWindow ? samples : Array.isArray(samples) ? SampleWindow.from(samples, Math.max(1, samples.length)) : undefined;
  if (!window) return averageOf(samples, now, windowMs, holdLatest);
  const at = window.newestAt;
  if (at === undefined || at > now) return undefined;
  return holdLatest || at > now - windowMs ? window.newestValue : undefined;
}

/** The record's `sourceHealth`: failures by source name, only those above 0; a damaged text reads as all healthy. */
export function healthOf(record: TargetRecord | undefined): Record<string, number> {
  // A record written when one source kept its count in `sourceFailures`: that source is `load`.
  if (!record?.sourceHealth) return record?.sourceFailures ? { load: record.sourceFailures } : {};
  try {
    const parsed: unknown = JSON.parse(record.sourceHealth);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, number] => Number.isInteger(e[1]) && (e[1] as number) > 0));
  } catch {
    return {};
  }
}

/** The failing sources' errors as the record keeps them; a source not read this time keeps no error. */
function encodeErrors(sources: readonly SourceObservation[]): string | undefined {
  const failing = sources.filter((s) => s.read === 'failed' && s.error !== undefined);
  return failing.length === 0 ? undefined : JSON.stringify(Object.fromEntries(failing.map((s) => [s.name, s.error!.slice(0, 500)])));
}

/** This pass's measured times over the stored ones (a source not read this time keeps its own); only configured sources. */
function encodeMeasured(sources: readonly SourceObservation[], stored: Record<string, number>): string | undefined {
  const entries = sources.flatMap((s) => {
    const at = s.measuredAt ?? (Object.hasOwn(stored, s.name) ? stored[s.name] : undefined);
    return at === undefined ? [] : [[s.name, at] as const];
  });
  return entries.length === 0 ? undefined : JSON.stringify(Object.fromEntries(entries));
}

function encodeHealth(failures: Record<string, number>): string | undefined {
  const failing = Object.entries(failures).filter(([, n]) => n > 0);
  return failing.length === 0 ? undefined : JSON.stringify(Object.fromEntries(failing));
}
