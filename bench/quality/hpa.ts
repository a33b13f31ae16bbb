/**
 * HPA v2 on a KEDA external metric, the way KEDA creates HPAs (no `spec.behavior`), from its
 * documented rules (../shared/reference/policy-cases.md, "Without `spec.behavior`"): KEDA reads
 * the load every 30 s; the HPA syncs every 15 s on the latest reading; raw = ⌈load ÷
 * targetPerReplica⌉ unless |load ÷ (targetPerReplica × current) − 1| ≤ 0.1 (then current); the
 * result is the highest of raw and the recommendations of the last 300 s, clamped to
 * [min, min(max, max(2 × current, 4))]. The first sync seeds the history with {current, now}.
 */
import { Fleet } from './fleet.js';
import type { FleetStep } from './metrics.js';
import { MINUTE_MS } from './traces.js';

export const HPA_SYNC_MS = 15_000;
export const KEDA_POLL_MS = 30_000;
export const HPA_TOLERANCE = 0.1;
export const HPA_DOWNSCALE_WINDOW_MS = 300_000;

export interface HpaState {
  replicas: number;
  /** Raw recommendations with when they were made; undefined before the first sync. */
  recommendations: { at: number; replicas: number }[] | undefined;
}

export interface Bounds {
  min: number;
  max: number;
}

/** One HPA sync: the replicas it sets and the history it keeps. */
export function hpaSync(state: HpaState, metric: number, targetPerReplica: number, now: number, bounds: Bounds): HpaState {
  const current = state.replicas;
  const ratio = metric / (targetPerReplica * current);
  const raw = current > 0 && Math.abs(ratio - 1) <= HPA_TOLERANCE ? current : Math.ceil(metric / targetPerReplica);
  const kept = (state.recommendations ?? [{ at: now, replicas: current }]).filter((r) => r.at > now - HPA_DOWNSCALE_WINDOW_MS);
  const stabilized = Math.max(raw, ...kept.map((r) => r.replicas));
  const upLimit = Math.max(2 * current, 4);
  const replicas = Math.max(bounds.min, Math.min(bounds.max, upLimit, stabilized));
  return { replicas, recommendations: [...kept, { at: now, replicas: raw }] };
}

export interface EmulatedRun {
  steps: FleetStep[];
  /** When each action was taken (a rule firing, a count-changing write), warm-up included. */
  actionTimes: number[];
}

/** The HPA over a per-minute load from `startMs`, pods ready `readyDelayMs` after a raise. */
export function runHpa(load: readonly number[], startMs: number, targetPerReplica: number, initial: number, readyDelayMs: number, bounds: Bounds): EmulatedRun {
  const fleet = new Fleet(initial, startMs);
  const end = startMs + load.length * MINUTE_MS;
  let state: HpaState = { replicas: initial, recommendations: undefined };
  let metric = load[0]!;
  const actionTimes: number[] = [];
  for (let t = startMs; t < end; t += HPA_SYNC_MS) {
    if ((t - startMs) % KEDA_POLL_MS === 0) metric = load[Math.floor((t - startMs) / MINUTE_MS)]!;
    const next = hpaSync(state, metric, targetPerReplica, t, bounds);
    if (next.replicas > state.replicas) fleet.add(next.replicas - state.replicas, t, readyDelayMs);
    else if (next.replicas < state.replicas) fleet.remove(state.replicas - next.replicas, t);
    if (next.replicas !== state.replicas) actionTimes.push(t);
    state = next;
  }
  fleet.settle(end);
  return { steps: fleet.steps, actionTimes };
}
