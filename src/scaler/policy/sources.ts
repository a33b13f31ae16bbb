/**
 * Several load sources as one demand, before the Knative windows and rates see it:
 *
 *   each source's value (its window's average; missing while it fails or has no sample)
 *   → fallback: a source failing more than `failureThreshold` times in a row reads as the
 *     fallback's replicas (KEDA's synthetic metric), which then apply in both directions
 *   → combine: max (default, as HPA) | min | sum of each source's replica count, or a formula
 *     over the raw values by name (KEDA scalingModifiers; `??` falls through a missing one)
 *
 * The demand is in replicas, unrounded for max and min (HPA's tolerance reads the ratio), so
 * the decider downstream takes it with a target per replica of 1. A source whose last read
 * failed, with no fallback engaged for it, is reported as failing: the plan then lets the
 * demand raise the target but never lower it (HPA: any metric broken, no scale-down).
 */
import { replicasFor, type LoadWindow } from '../../load/decider.js';
import { evaluateFormula, type Formula } from './formula.js';

export type SourceKind = 'http' | 'queue' | 'push';

export interface SourceSpec {
  name: string;
  kind: SourceKind;
  targetPerReplica: number;
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
      /** Sources read as the fallback's replicas. */
      fallback: readonly string[];
      /** Sources whose last read failed, without a fallback engaged for them. */
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

export function sourcesDemand(input: DemandInput): SourcesDemand {
  const { specs, combine, fallback, current } = input;
  const byName = new Map(input.readings.map((r) => [r.name, r]));
  const engaged = specs.filter((s) => fallbackEngaged(fallback, byName.get(s.name)?.failures ?? 0)).map((s) => s.name);
  const failing = specs.filter((s) => (byName.get(s.name)?.failures ?? 0) > 0 && !engaged.includes(s.name)).map((s) => s.name);
  const fallbackDemand = engaged.length > 0 && fallback ? fallbackReplicas(fallback, current) : undefined;
  let demand: number | undefined;
  if (combine.kind === 'formula') {
    // A formula has one metric, as KEDA's composite one: any source in fallback makes it the fallback.
    if (fallbackDemand !== undefined) demand = fallbackDemand;
    else {
      const value = evaluateFormula(combine.formula, Object.fromEntries(specs.map((s) => [s.name, valueOf(byName.get(s.name))])));
      demand = value === undefined ? undefined : Math.max(0, value) / combine.targetPerReplica;
    }
  } else {
    const demands = specs.flatMap((s): number[] => {
      if (engaged.includes(s.name)) return [fallbackDemand!];
      const value = valueOf(byName.get(s.name));
      if (value === undefined) return [];
      const exact = Math.max(0, value) / s.targetPerReplica;
      return [combine.kind === 'sum' ? replicasFor(value, s.targetPerReplica) : exact];
    });
    demand = demands.length === 0 ? undefined : combineAll(combine.kind, demands);
  }
  return demand === undefined ? { kind: 'unknown', fallback: engaged, failing } : { kind: 'known', demand, fallback: engaged, failing };
}

function valueOf(reading: SourceReading | undefined): number | undefined {
  return reading && reading.failures === 0 ? reading.value : undefined;
}

function combineAll(kind: 'max' | 'min' | 'sum', demands: number[]): number {
  if (kind === 'max') return Math.max(...demands);
  if (kind === 'min') return Math.min(...demands);
  return demands.reduce((a, b) => a + b, 0);
}

/** KEDA: a source is active when its value is strictly above its activation threshold; one in fallback counts as active. */
export function anySourceActive(input: DemandInput): boolean {
  const byName = new Map(input.readings.map((r) => [r.name, r]));
  return input.specs.some((s) => {
    const reading = byName.get(s.name);
    if (fallbackEngaged(input.fallback, reading?.failures ?? 0)) return true;
    const value = valueOf(reading);
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
