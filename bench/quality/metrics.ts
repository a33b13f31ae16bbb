/**
 * The scoring contract's metrics (SPEC RG elasticity) over a scored window: demand d(t) per
 * minute, held for the minute, against a policy's supply s(t) (ready units) and billed units,
 * both step functions. Pure: plain arrays in, plain numbers out.
 *
 * θU = (100 / T) ∫ max(d − s, 0) ÷ d dt and θO = (100 / T) ∫ max(s − d, 0) ÷ d dt (instants with
 * d = 0 add 0); τU and τO the percent of time with s < d and s > d; an under-provisioning
 * episode is a maximal interval with s < d; cost ÷ demand = ∫ billed dt ÷ ∫ d dt.
 */
import { linearPercentile, MINUTE_MS } from './traces.js';

/** A step of a policy's fleet: in force from `at` (epoch ms) until the next step. */
export interface FleetStep {
  at: number;
  /** Ready units: running VMs, ready pods. */
  supply: number;
  /** Paid-for units: running, creating and starting VMs; every existing pod. */
  billed: number;
}

export interface Scores {
  thetaU: number;
  thetaO: number;
  tauU: number;
  tauO: number;
  costPerDemand: number;
  /** Under-provisioning episodes, their durations in seconds. */
  episodes: { count: number; p50: number; p95: number; max: number };
}

/** d(t) = ⌈load ÷ targetPerReplica⌉ per minute. */
export function demandOf(load: readonly number[], targetPerReplica: number): number[] {
  // A quotient like 14.400000000000002 from floating point is 14.4, not a unit more.
  return load.map((l) => Math.ceil(Math.round((l / targetPerReplica) * 1e9) / 1e9));
}

/**
 * Scores the steps against `demand` (minute k of it spans [fromMs + k min, fromMs + (k + 1) min)).
 * The step in force at `fromMs` is the last one at or before it; steps must be in time order.
 */
export function score(demand: readonly number[], fromMs: number, steps: readonly FleetStep[]): Scores {
  const toMs = fromMs + demand.length * MINUTE_MS;
  const acc = { under: 0, over: 0, underTime: 0, overTime: 0, billed: 0, demand: 0 };
  const episodes: number[] = [];
  let episodeStart: number | undefined;
  let i = 0;
  while (i + 1 < steps.length && steps[i + 1]!.at <= fromMs) i++;
  let t = fromMs;
  while (t < toMs) {
    const minute = Math.floor((t - fromMs) / MINUTE_MS);
    const nextStep = i + 1 < steps.length ? steps[i + 1]!.at : Infinity;
    const end = Math.min(toMs, fromMs + (minute + 1) * MINUTE_MS, nextStep);
    // Steps at the same instant: only the last of them is in force.
    if (end <= t) {
      i++;
      continue;
    }
    const d = demand[minute]!;
    const { supply: s, billed } = steps[i]!.at <= t ? steps[i]! : { supply: 0, billed: 0 };
    const dt = (end - t) / 1000;
    if (d > 0) {
      acc.under += (Math.max(d - s, 0) / d) * dt;
      acc.over += (Math.max(s - d, 0) / d) * dt;
    }
    if (s < d) {
      acc.underTime += dt;
      episodeStart ??= t;
    } else if (episodeStart !== undefined) {
      episodes.push((t - episodeStart) / 1000);
      episodeStart = undefined;
    }
    if (s > d) acc.overTime += dt;
    acc.billed += billed * dt;
    acc.demand += d * dt;
    t = end;
    if (end === nextStep) i++;
  }
  if (episodeStart !== undefined) episodes.push((toMs - episodeStart) / 1000);
  const T = (toMs - fromMs) / 1000;
  return {
    thetaU: (100 * acc.under) / T,
    thetaO: (100 * acc.over) / T,
    tauU: (100 * acc.underTime) / T,
    tauO: (100 * acc.overTime) / T,
    costPerDemand: acc.demand > 0 ? acc.billed / acc.demand : Infinity,
    episodes: { count: episodes.length, p50: linearPercentile(episodes, 0.5), p95: linearPercentile(episodes, 0.95), max: episodes.length ? Math.max(...episodes) : 0 },
  };
}
