/**
 * The quality bench's replay workers (bench/quality/workers.ts): a replay run in a worker thread
 * answers exactly what it answers in this one, jobs beyond the pool's size wait their turn, a
 * failing replay fails its own job with the worker's reason (and the trace's scoring names the
 * trace, kind and policy), a worker that cannot start fails its jobs, and closed workers take no job.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDrover, type DroverJob } from '../../bench/quality/drover.js';
import { droverWorkers, type DroverWorkers } from '../../bench/quality/workers.js';
import { scoreTraceKind } from '../../bench/quality/score-trace.js';
import { bundledDroverWorker } from '../support/bench-worker.js';

let entry: string;
let workers: DroverWorkers | undefined;

beforeAll(async () => {
  entry = await bundledDroverWorker();
}, 30_000);

afterEach(async () => {
  await workers?.close();
  workers = undefined;
});

/** An hour of load rising and falling, in units of 5. */
const hour = (kind: DroverJob['kind'], scale = 1): DroverJob => ({
  kind,
  load: Array.from({ length: 60 }, (_, m) => scale * (20 + 15 * Math.sin(m / 6))),
  startMs: 0,
  targetPerReplica: 5,
  initial: 4,
});

describe('the quality bench in worker threads', () => {
  it('answers each of four jobs on two threads with the run this thread computes', async () => {
    const jobs = [hour('vms'), hour('pods'), hour('pods', 3), { ...hour('vms', 2), candidate: { policy: 'knative' } } satisfies DroverJob];
    workers = droverWorkers(entry, 2);
    const inWorkers = await Promise.all(jobs.map((j) => workers!.run(j)));
    const here = await Promise.all(jobs.map((j) => runDrover(j)));
    expect(inWorkers).toEqual(here);
    // Not four copies of one answer: the jobs differ, so do their runs.
    expect(new Set(inWorkers.map((r) => JSON.stringify(r.steps))).size).toBe(4);
    expect(inWorkers.every((r) => r.actionTimes.length > 0)).toBe(true);
  });

  it('fails a job whose replay fails with its reason, and serves the next', async () => {
    workers = droverWorkers(entry, 1);
    await expect(workers.run({ ...hour('pods'), targetPerReplica: -1 })).rejects.toThrow(/a replay in a worker failed: .*targetPerReplica/s);
    await expect(workers.run(hour('pods'))).resolves.toEqual(await runDrover(hour('pods')));
  });

  it('fails the jobs of a worker that cannot start, naming why', async () => {
    workers = droverWorkers(`${entry}.missing`, 1);
    await expect(workers.run(hour('pods'))).rejects.toThrow(/Cannot find module .*drover-worker\.mjs\.missing/);
    // And every job after it: no worker is left to run one.
    await expect(workers.run(hour('vms'))).rejects.toThrow(/Cannot find module/);
  });

  it('a failed replay fails the trace’s scoring with the trace, the kind and the policy it was for', async () => {
    workers = droverWorkers(entry, 1);
    const trace = { name: 'tiny', title: 'an hour', load: hour('pods').load, scoredFrom: 0, scoredTo: 60, startMs: 0, targetPerReplica: -1, goals: 'none' as const };
    await expect(scoreTraceKind(trace, 'pods', workers.run)).rejects.toThrow(/^tiny pods · Drover defaults \(Deployment\): a replay in a worker failed: .*targetPerReplica/s);
  });

  it('refuses jobs once closed', async () => {
    const closing = droverWorkers(entry, 1);
    await closing.close();
    await expect(closing.run(hour('pods'))).rejects.toThrow('the replay workers are closed');
  });
});
