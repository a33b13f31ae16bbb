/** A worker thread of bench/quality/workers.ts: runs each job it is sent through runDrover and answers with the run. */
import { parentPort } from 'node:worker_threads';
import { runDrover, type DroverJob } from './drover.js';
import type { WorkerAnswer } from './workers.js';

const port = parentPort;
if (!port) throw new Error('drover-worker.js runs as a worker thread of the quality bench');
port.on('message', ({ id, job }: { id: number; job: DroverJob }) => {
  runDrover(job).then(
    (run) => port.postMessage({ id, run } satisfies WorkerAnswer),
    (error: unknown) => port.postMessage({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies WorkerAnswer),
  );
});
