/**
 * Drover in the quality bench: `drover replay`'s own code path (replayTrace, the production
 * decisions on a virtual clock) for a target with only its bounds and load set — minScale 1,
 * maxScale 1000, scale to zero off, one push source fed the trace's per-minute value each minute.
 * VMs: a Pool target on a pool with defaults and maxCount 1000, ready 180 s after a raise and
 * 40 s after a start. Pods: a Deployment, ready 30 s after a raise.
 */
import { parseConfig } from '../../src/config/load.js';
import { replayTrace } from '../../src/replay/replay.js';
import { DEFAULT_REPLAY_SCHEDULE, parseReplaySchedule } from '../../src/replay/schedule.js';
import type { TraceRow } from '../../src/replay/trace.js';
import type { EmulatedRun } from './hpa.js';
import type { FleetStep } from './metrics.js';
import { MINUTE_MS } from './traces.js';

export type FleetKind = 'vms' | 'pods';

export const VM_CREATION_MS = 180_000;
export const VM_START_MS = 40_000;
export const POD_READY_MS = 30_000;

/** The start-up delay of each kind (foresight looks this far ahead). */
export const STARTUP_DELAY_MS: Record<FleetKind, number> = { vms: VM_CREATION_MS, pods: POD_READY_MS };

const TARGET = { name: 'bench', minScale: 1, maxScale: 1000, scaleToZero: { enabled: false } };

/** A candidate's keys beside the bounds and the load: the target's (the seed's rules, the forecast's floor, another budget), or the pool's warm buffer. */
export type CandidateKeys = { policy: 'knative' } | { forecast: { mode: 'floor' } } | { headroom: { underProvisioning: number } } | { warm: { max: number } };

/** The configuration as `drover replay` would load it (offline: it reaches no cluster, no scale set). */
export function benchConfig(kind: FleetKind, targetPerReplica: number, candidate?: CandidateKeys) {
  const load = { source: 'push', targetPerReplica };
  // Only the bounds and the load, as the contract says; more keys only for a candidate's row.
  const { warm, ...targetKeys } = { ...candidate } as { warm?: { max: number } };
  const target = { ...TARGET, load, ...targetKeys };
  if (kind === 'pods') return parseConfig({ kubernetes: {}, targets: [{ ...target, scaleTargetRef: { kind: 'Deployment', name: 'bench' } }] }, '(quality bench)', { offline: true });
  return parseConfig(
    {
      pools: [{ name: 'fleet', scaleSet: { resourceGroup: 'bench', name: 'fleet' }, maxCount: 1000, ...(warm ? { warm } : {}) }],
      targets: [{ ...target, scaleTargetRef: { kind: 'Pool', name: 'fleet' } }],
    },
    '(quality bench)',
    { offline: true },
  );
}

function* minuteRows(load: readonly number[], startMs: number): Generator<TraceRow> {
  for (let m = 0; m < load.length; m++) yield { at: startMs + m * MINUTE_MS, target: undefined, load: load[m]!, line: m + 2 };
  // A last row at the end of the last minute, so the replay runs through it.
  yield { at: startMs + load.length * MINUTE_MS, target: undefined, load: load.at(-1)!, line: load.length + 2 };
}

/** One replay to run: plain data, so that a worker thread can run it as well as this one. */
export interface DroverJob {
  kind: FleetKind;
  load: readonly number[];
  startMs: number;
  targetPerReplica: number;
  /** Units ready at the start. */
  initial: number;
  candidate?: CandidateKeys;
}

/** Runs a job; in this thread (`runDrover`) or in a worker's (bench/quality/workers.ts). */
export type DroverRunner = (job: DroverJob) => Promise<EmulatedRun>;

/** The replay of the per-minute load, starting with `initial` units ready. */
export const runDrover: DroverRunner = async ({ kind, load, startMs, targetPerReplica, initial, candidate }) => {
  const config = benchConfig(kind, targetPerReplica, candidate);
  const schedule = parseReplaySchedule(DEFAULT_REPLAY_SCHEDULE);
  const [result] = await replayTrace(config, minuteRows(load, startMs), { readyDelayMs: POD_READY_MS, creationDelayMs: VM_CREATION_MS, startDelayMs: VM_START_MS, initialScale: initial, schedule });
  if (!result) throw new Error('the replay returned no target');
  if (kind === 'vms') {
    const pool = result.pool!;
    const steps: FleetStep[] = pool.timeline.map((r) => ({ at: r.at, supply: r.ready, billed: r.ready + r.creating }));
    return { steps, actionTimes: pool.calls };
  }
  const steps: FleetStep[] = [];
  for (const r of result.timeline.rows()) {
    const step = { at: r.at, supply: r.ready, billed: r.scale };
    if (steps.at(-1)?.at === r.at) steps[steps.length - 1] = step;
    else steps.push(step);
  }
  return { steps, actionTimes: result.writes };
};
