/**
 * Drover's replays in worker threads: the quality bench's work is some forty replays of a week
 * of minutes, each on one core, so a pool of one worker per core runs them side by side and the
 * run takes about 1 ÷ cores of its time alone. The jobs and their answers are plain data; a
 * worker takes the next job when it answers, so a long week does not hold back the short hours.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { DroverJob, DroverRunner } from './drover.js';
import type { EmulatedRun } from './hpa.js';

/** What a worker answers a job with: its run, or why it failed. */
export type WorkerAnswer = { id: number; run: EmulatedRun } | { id: number; error: string };

export interface DroverWorkers {
  run: DroverRunner;
  /** Ends the threads; a job still waiting, and any later one, is refused. */
  close(): Promise<void>;
}

interface Pending {
  id: number;
  job: DroverJob;
  resolve(run: EmulatedRun): void;
  reject(error: Error): void;
}

/** The compiled worker beside this module (dist/bench/quality/drover-worker.js). */
export const DROVER_WORKER = new URL('./drover-worker.js', import.meta.url);

/** `size` workers (one per core by default) running `entry`, the worker module. */
export function droverWorkers(entry: URL | string = DROVER_WORKER, size = availableParallelism()): DroverWorkers {
  const waiting: Pending[] = [];
  const busy = new Map<Worker, Pending>();
  const idle: Worker[] = [];
  let nextId = 0;
  /** Why no more jobs are taken: the pool was closed, or a worker died. */
  let stopped: Error | undefined;

  const dispatch = () => {
    while (idle.length > 0 && waiting.length > 0) {
      const worker = idle.pop()!;
      const pending = waiting.shift()!;
      busy.set(worker, pending);
      worker.postMessage({ id: pending.id, job: pending.job });
    }
  };
  const settle = (worker: Worker, answer: WorkerAnswer) => {
    const pending = busy.get(worker);
    busy.delete(worker);
    idle.push(worker);
    if (pending?.id === answer.id) {
      if ('run' in answer) pending.resolve(answer.run);
      else pending.reject(new Error(`a replay in a worker failed: ${answer.error}`));
    }
    dispatch();
  };
  const stop = (error: Error) => {
    stopped ??= error;
    for (const pending of [...busy.values(), ...waiting.splice(0)]) pending.reject(error);
    busy.clear();
  };
  const workers = Array.from({ length: Math.max(1, size) }, () => {
    const worker = new Worker(entry);
    worker.on('message', (answer: WorkerAnswer) => settle(worker, answer));
    // A worker that dies fails its job, every other one and every one to come: a bench with holes would mislead.
    worker.on('error', (error) => stop(error));
    idle.push(worker);
    return worker;
  });

  return {
    run: (job) =>
      new Promise<EmulatedRun>((resolve, reject) => {
        if (stopped) return reject(stopped);
        waiting.push({ id: nextId++, job, resolve, reject });
        dispatch();
      }),
    async close() {
      stop(new Error('the replay workers are closed'));
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
