/**
 * Several load sources as one demand, before the Knative windows and rates see it:
 *
 *   each source's value (its window's average; missing while it fails or has no sample)
 *   → fallback: once every source has failed more than `failureThreshold` times in a row, the
 *     fallback's replicas (KEDA's synthetic metric) stand for the load, in both directions
 *   → combine: max (default, as HPA) | min | sum of each source's replica count, or a formula
 *     over the raw values by name (KEDA scalingModifiers; `??` falls through a missing one)
 *
 * The demand is in replicas, unrounded for max and min (HPA's tolerance reads the ratio), so
 * the decider downstream takes it with a target per replica of 1. A source whose last read
 * failed, while the fallback is not engaged, is reported as failing (past the threshold or
 * not): the plan then lets the demand raise the target but never lower it (HPA: any metric
 * broken, no scale-down).
 */
import { replicasFor, type LoadWindow } from '../../load/decider.js';
import { evaluateFormula, type Formula } from './formula.js';
import type { SourceKindName } from '../../load/registry.js';
import type { MetricType } from '../../load/source-kind.js';

export type SourceKind = SourceKindName;

export interface SourceSpec {
  name: string;
  kind: SourceKind;
  targetPerReplica: number;
  /** `perReplica`: the value is an average over the ready replicas (load/source-kind.ts); the view makes it a total before combining. */
  metricType: MetricType;
  /** Active when the value is strictly above it (KEDA activationTargetValue). */
  activationThreshold: number;
}

export type Combine =
  | { kind: 'max' }
  | { kind: 'min' }
  | { kind: 'sum' }
  | { kind: 'formula'; formula: Formula; targetPerReplica: number };

export type FallbackBehavior = 'static' | 'currentReplicas' | 'currentReplicasIfHigher' | 'currentReplicasIfLower';

export interface FallbackSettings {
  failureThreshold: number;
  replicas: number;
  behavior: FallbackBehavior;
}

export interface SourceReading {
  name: string;
  /** Its value now (a window's average); undefined while it fails or has no sample. */
  value: number | undefined;
  /** Consecutive failed reads up to this one (0: its last read answered). */
  failures: number;
}

export type SourcesDemand =
  | {
      kind: 'known';
      /** Replicas wanted, unrounded. */
      demand: number;
      /** Every source, when all are past the fallback's threshold (its replicas are the demand); else none. */
      fallback: readonly string[];
      /** Sources whose last read failed, while the fallback is not engaged. */
      failing: readonly string[];
    }
  | { kind: 'unknown'; fallback: readonly string[]; failing: readonly string[] };

export interface DemandInput {
  specs: readonly SourceSpec[];
  readings: readonly SourceReading[];
  combine: Combine;
  fallback: FallbackSettings | undefined;
  /** The target's own scale now: the fallback's `currentReplicas*` behaviours read it. */
  current: number;
}

/** The next count of consecutive failures: a read that answered resets it, one that failed adds one, none leaves it. */
export function nextFailures(previous: number, read: 'ok' | 'failed' | 'none'): number {
  if (read === 'ok') return 0;
  return read === 'failed' ? previous + 1 : previous;
}

/** KEDA engages a fallback after strictly more failures than its threshold. */
export function fallbackEngaged(fallback: FallbackSettings | undefined, failures: number): fallback is FallbackSettings {
  return fallback !== undefined && failures > fallback.failureThreshold;
}

export function fallbackReplicas(fallback: FallbackSettings, current: number): number {
  switch (fallback.behavior) {
    case 'static':
      return fallback.replicas;
    case 'currentReplicas':
      return current;
    case 'currentReplicasIfHigher':
      return Math.max(current, fallback.replicas);
    case 'currentReplicasIfLower':
      return Math.min(current, fallback.replicas);
  }
}

/**
 * The fallback engages for the sources as a whole, once every one of them is past its
 * threshold (KEDA's composite metric, as a formula is): until then a source past it is one more
 * failing source, read as missing, so the answering sources may raise the target and nothing
 * lowers it. A source past the threshold never stands for the fallback's replicas among
 * answering ones: `min` or a formula would fall to them while a healthy source asks for more.
 */
export function sourcesDemand(input: DemandInput): SourcesDemand {
  const { specs, combine, fallback, current } = input;
  const byName = new Map(input.readings.map((r) => [r.name, r]));
  if (allEngaged(input)) {
    return { kind: 'known', demand: fallbackReplicas(fallback!, current), fallback: specs.map((s) => s.name), failing: [] };
  }
  const failing = specs.filter((s) => (byName.get(s.name)?.failures ?? 0) > 0).map((s) => s.name);
  const demand = combine.kind === 'formula' ? formulaDemand(combine, specs, byName) : combinedDemand(combine.kind, specs, byName);
  return demand === undefined ? { kind: 'unknown', fallback: [], failing } : { kind: 'known', demand, fallback: [], failing };
}

/** Every source past the fallback's threshold (and there is a fallback). */
function allEngaged(input: DemandInput): boolean {
  const byName = new Map(input.readings.map((r) => [r.name, r]));
  return input.specs.length > 0 && input.specs.every((s) => fallbackEngaged(input.fallback, byName.get(s.name)?.failures ?? 0));
}

function formulaDemand(combine: Extract<Combine, { kind: 'formula' }>, specs: readonly SourceSpec[], byName: ReadonlyMap<string, SourceReading>): number | undefined {
  const value = evaluateFormula(combine.formula, Object.fromEntries(specs.map((s) => [s.name, valueOf(byName.get(s.name))])));
  return value === undefined ? undefined : Math.max(0, value) / combine.targetPerReplica;
}

function combinedDemand(kind: 'max' | 'min' | 'sum', specs: readonly SourceSpec[], byName: ReadonlyMap<string, SourceReading>): number | undefined {
  const demands = specs.flatMap((s): number[] => {
    const value = valueOf(byName.get(s.name));
    if (value === undefined) return [];
    return [kind === 'sum' ? replicasFor(value, s.targetPerReplica) : Math.max(0, value) / s.targetPerReplica];
  });
  return demands.length === 0 ? undefined : combineAll(kind, demands);
}

function valueOf(reading: SourceReading | undefined): number | undefined {
  return reading && reading.failures === 0 ? reading.value : undefined;
}

function combineAll(kind: 'max' | 'min' | 'sum', demands: number[]): number {
  if (kind === 'max') return Math.max(...demands);
  if (kind === 'min') return Math.min(...demands);
  return demands.reduce((a, b) => a + b, 0);
}

/** KEDA: a source is active when its value is strictly above its activation threshold; an engaged fallback (every source past it) counts as active. */
export function anySourceActive(input: DemandInput): boolean {
  if (allEngaged(input)) return true;
  const byName = new Map(input.readings.map((r) => [r.name, r]));
  return input.specs.some((s) => {
    const value = valueOf(byName.get(s.name));
    return value !== undefined && value > s.activationThreshold;
  });
}

export interface SourceWindow {
  spec: SourceSpec;
  window: LoadWindow;
  /** A push source is a gauge: an empty window reads as its last value. */
  holdLatest: boolean;
  failures: number;
}

/**
 * The sources as one load window in replicas, for the decider's stable and panic windows: each
 * window's average is the demand combined from every source's average over that window.
 */
export function combinedWindow(sources: readonly SourceWindow[], rest: Omit<DemandInput, 'specs' | 'readings'>): LoadWindow {
  const specs = sources.map((s) => s.spec);
  return {
    average(now, windowMs) {
      const readings = sources.map((s) => ({ name: s.spec.name, value: s.window.average(now, windowMs, s.holdLatest), failures: s.failures }));
      const combined = sourcesDemand({ ...rest, specs, readings });
      return combined.kind === 'known' ? combined.demand : undefined;
    },
  };
}
