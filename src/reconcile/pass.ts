/**
 * One reconciliation pass over every pool and target, a few at a time, inside a time budget.
 * Whatever the budget does not reach is put on the reconcile queue, so a large fleet spreads
 * over Functions instances instead of overrunning one invocation.
 */
import { errorMessage, type Log } from '../log.js';
import type { Runtime } from '../runtime/runtime.js';
import { prunePending } from '../queue/sender.js';
import { reconcileObject } from './object.js';
import { objectKey, type ObjectOutcome, type ObjectRef } from './types.js';

export interface PassOptions {
  log: Log;
  signal?: AbortSignal;
  /** How many objects are reconciled at once. */
  concurrency?: number;
  /** Objects not started within this many ms of the pass's start are enqueued instead. */
  budgetMs?: number;
  dryRun?: boolean;
  reason?: string;
}

export interface PassReport {
  startedAt: number;
  finishedAt: number;
  outcomes: ObjectOutcome[];
  /** Objects handed to the reconcile queue because the budget ran out. */
  deferred: ObjectRef[];
  errors: number;
}

export function allObjects(rt: Runtime): ObjectRef[] {
  return [
    ...rt.config.pools.map((p) => ({ kind: 'pool' as const, name: p.name })),
    ...rt.config.targets.map((t) => ({ kind: 'target' as const, name: t.name })),
  ];
}

export async function runPass(rt: Runtime, options: PassOptions): Promise<PassReport> {
  const { log } = options;
  const startedAt = rt.clock.now();
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const budgetMs = options.budgetMs ?? 45_000;
  const reason = options.reason ?? 'timer';
  const queue = allObjects(rt);
  const outcomes: ObjectOutcome[] = [];
  const deferred: ObjectRef[] = [];

  const worker = async () => {
    for (let ref = queue.shift(); ref; ref = queue.shift()) {
      if (options.signal?.aborted || rt.clock.now() - startedAt >= budgetMs) {
        deferred.push(ref);
        continue;
      }
      outcomes.push(
        await reconcileObject(rt, ref, { reason, dryRun: options.dryRun }, { log, signal: options.signal }).catch(
          (err: unknown): ObjectOutcome => ({ ref, status: 'failed', error: errorMessage(err) }),
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));

  if (!options.dryRun) {
    for (const ref of deferred) {
      await rt.queues.reconcile({ ...ref, reason: options.signal?.aborted ? 'the host stopped before reaching it' : 'pass budget exhausted' }).catch((err: unknown) =>
        log.error(`${objectKey(ref)}: could not enqueue after the pass ran out of time: ${errorMessage(err)}`),
      );
    }
    if (deferred.length) {
      log.warn(
        options.signal?.aborted
          ? `the host is stopping: ${deferred.length} object(s) not reached were handed to the reconcile queue`
          : `pass budget of ${budgetMs} ms reached: ${deferred.length} object(s) handed to the reconcile queue`,
      );
    }
  }
  if (!options.dryRun && !options.signal?.aborted) {
    // Housekeeping that keeps the log and the re-enqueue markers bounded.
    await Promise.all([prunePending(rt.table('leases'), rt.clock.now()), rt.decisions.prune(rt.clock.now())]).catch((err: unknown) =>
      log.warn(`could not prune old decisions or re-enqueue markers: ${errorMessage(err)}`),
    );
  }
  const errors = outcomes.filter((o) => o.status === 'failed').length;
  log.debug?.(`pass finished: ${outcomes.length} reconciled, ${deferred.length} deferred, ${errors} failed`);
  return { startedAt, finishedAt: rt.clock.now(), outcomes, deferred, errors };
}
