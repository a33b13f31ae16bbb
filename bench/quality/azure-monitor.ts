/**
 * Azure Monitor autoscale on a scale set, from its documented rules: CPU = min(100, 70 × load ÷
 * (ready × targetPerReplica)) per second, averaged into 1-minute buckets; an evaluation at each
 * minute's end reads the 5-minute average of the buckets that ended at least 3 minutes earlier;
 * above 70 % it adds `out` VMs, below `in` % it removes one unless the projection
 * avg × n ÷ (n − 1) would exceed 70 % (the flapping check); any action starts a 5-minute
 * cooldown; minimum 1, maximum 1000.
 */
import { Fleet } from './fleet.js';
import type { Bounds, EmulatedRun } from './hpa.js';
import { MINUTE_MS } from './traces.js';

export interface AutoscaleRules {
  name: string;
  /** VMs added above 70 %. */
  out: number;
  /** Below this CPU percent one VM is removed. */
  in: number;
}

export const TUTORIAL_RULES: AutoscaleRules = { name: 'tutorial', out: 3, in: 30 };
export const PORTAL_RULES: AutoscaleRules = { name: 'portal', out: 1, in: 20 };

export const SCALE_OUT_ABOVE = 70;
export const COOLDOWN_MS = 5 * MINUTE_MS;
/** The buckets averaged, and how long after its end a bucket is first read. */
export const AVERAGED_BUCKETS = 5;
export const METRIC_LAG_MINUTES = 3;

export type AutoscaleDecision =
  | { kind: 'out'; to: number }
  | { kind: 'in'; to: number }
  | { kind: 'hold'; why: 'cooldown' | 'no data' | 'between' | 'minimum' | 'maximum' | 'flapping' };

export interface AutoscaleInput {
  /** The current instance count. */
  count: number;
  /** The averaged CPU percent; undefined before enough buckets exist. */
  average: number | undefined;
  now: number;
  cooldownUntil: number;
}

/** One evaluation of the two rules. */
export function evaluateAutoscale(input: AutoscaleInput, rules: AutoscaleRules, bounds: Bounds): AutoscaleDecision {
  const { count, average } = input;
  if (input.now < input.cooldownUntil) return { kind: 'hold', why: 'cooldown' };
  if (average === undefined) return { kind: 'hold', why: 'no data' };
  if (average > SCALE_OUT_ABOVE) return count >= bounds.max ? { kind: 'hold', why: 'maximum' } : { kind: 'out', to: Math.min(bounds.max, count + rules.out) };
  if (average >= rules.in) return { kind: 'hold', why: 'between' };
  if (count <= bounds.min) return { kind: 'hold', why: 'minimum' };
  if ((average * count) / (count - 1) > SCALE_OUT_ABOVE) return { kind: 'hold', why: 'flapping' };
  return { kind: 'in', to: count - 1 };
}

/** The CPU percent a second shows: 70 % at targetPerReplica per ready VM, 100 % with none ready. */
export function cpuPercent(load: number, ready: number, targetPerReplica: number): number {
  if (ready <= 0) return load > 0 ? 100 : 0;
  return Math.min(100, (70 * load) / (ready * targetPerReplica));
}

/** The rules over a per-minute load from `startMs`, VMs ready `readyDelayMs` after a raise. */
export function runAzureMonitor(load: readonly number[], startMs: number, targetPerReplica: number, initial: number, readyDelayMs: number, rules: AutoscaleRules, bounds: Bounds): EmulatedRun {
  const fleet = new Fleet(initial, startMs);
  const buckets: number[] = [];
  let cooldownUntil = -Infinity;
  const actionTimes: number[] = [];
  for (let m = 0; m < load.length; m++) {
    let sum = 0;
    for (let s = 0; s < 60; s++) sum += cpuPercent(load[m]!, fleet.readyAt(startMs + m * MINUTE_MS + s * 1000), targetPerReplica);
    buckets.push(sum / 60);
    const now = startMs + (m + 1) * MINUTE_MS;
    // Buckets m − 7 … m − 3 ended at least 3 minutes before this evaluation.
    const last = m - METRIC_LAG_MINUTES;
    const first = last - AVERAGED_BUCKETS + 1;
    const average = first >= 0 ? buckets.slice(first, last + 1).reduce((a, b) => a + b, 0) / AVERAGED_BUCKETS : undefined;
    const decision = evaluateAutoscale({ count: fleet.size, average, now, cooldownUntil }, rules, bounds);
    if (decision.kind === 'hold') continue;
    if (decision.kind === 'out') fleet.add(decision.to - fleet.size, now, readyDelayMs);
    else fleet.remove(fleet.size - decision.to, now);
    cooldownUntil = now + COOLDOWN_MS;
    actionTimes.push(now);
  }
  fleet.settle(startMs + load.length * MINUTE_MS);
  return { steps: fleet.steps, actionTimes };
}
