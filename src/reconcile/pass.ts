/**
 * One reconciliation pass over every pool and target, a few at a time, inside a time budget.
 * At the budget, objects not started yet and objects still running (aborted there: every call
 * they make carries the pass's signal) are handed to the reconcile queue, so a large or slow
 * fleet spreads over Functions instances instead of overrunning one invocation. The CLI's pass
 * has the same budget but enqueues nothing: it reports what it could not finish.
 */
import { formatDuration } from '../config/duration.js';
import { AbortedError, reasonOf, scopedAbort } from '../deadline.js';
import { errorMessage, type Log } from '../log.js';
import type { DroverConfig } from '../config/schema.js';
import type { DecisionLog } from '../state/decisions.js';
import type { EntityTable } from '../state/entity-table.js';
import type { PushStore } from '../load/push-store.js';
import type { QueueSender } from '../queue/sender.js';
import { tidyPending } from '../queue/sender.js';
import { adoptMarkerPushes } from '../queue/marker-pushes.js';
import { pushSourceName } from '../load/push-served.js';
import { reconcileObject, type ObjectDeps } from './object.js';
import { objectKey, type ObjectOutcome, type ObjectRef } from '../job/context.js';

/** The timer's budget: its pass ends well before the next minute's tick. */
export const PASS_BUDGET_MS = 45_000;
/** How long objects aborted at the budget get to wind up (release leases, log) before the pass ends without them. */
export const ABORT_GRACE_MS = 2_000;

export interface PassOptions {
  log: Log;
  signal?: AbortSignal;
  /** How many objects are reconciled at once. */
  concurrency?: number;
  /** At this many ms after the pass's start, objects still running are aborted. Default PASS_BUDGET_MS. */
  budgetMs?: number;
  /** Hand unfinished objects to the reconcile queue (default true; the CLI says false). */
  enqueue?: boolean;
  dryRun?: boolean;
  reason?: string;
  /**
   * The timer occurrence this pass runs for (see `timerOccurrence`; later ones larger). With it, each
   * object's lease is taken with a claim for that occurrence (occurrence-claims.ts), so hosts whose
   * timers all fire (local hosts, or a Functions singleton lock that lapsed) reconcile each object
   * once between them.
   */
  occurrence?: number;
}

export interface PassReport {
  startedAt: number;
  finishedAt: number;
  outcomes: ObjectOutcome[];
  /** Objects not started because the budget ran out (or the host is stopping). */
  deferred: ObjectRef[];
  /** Deferred and aborted objects put on the reconcile queue. */
  enqueued: ObjectRef[];
  errors: number;
}

/** What a pass uses besides each object's parts: the queues and markers, the push rows, the decision log to prune. */
export type PassDeps = ObjectDeps & {
  readonly queues: Pick<QueueSender, 'reconcile' | 'markers'>;
  readonly decisions: Pick<DecisionLog, 'prune'>;
  readonly stores: { readonly pushes: Pick<PushStore, 'offer'>; readonly pendingRows: EntityTable };
};

export function allObjects(deps: { readonly config: Pick<DroverConfig, 'pools' | 'targets'> }): ObjectRef[] {
  return [
    ...deps.config.pools.map((p) => ({ kind: 'pool' as const, name: p.name })),
    ...deps.config.targets.map((t) => ({ kind: 'target' as const, name: t.name })),
  ];
}

/** What the pass could not finish: not started, aborted, or failed because it was aborted. */
export function unfinished(report: PassReport): ObjectRef[] {
  return [...report.deferred, ...report.outcomes.filter((o) => o.status === 'aborted').map((o) => o.ref)];
}

export async function runPass(deps: PassDeps, options: PassOptions): Promise<PassReport> {
  const { log } = options;
  const startedAt = deps.clock.now();
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const budgetMs = options.budgetMs ?? PASS_BUDGET_MS;
  const reason = options.reason ?? 'timer';
  const queue = allObjects(deps);
  const outcomes: ObjectOutcome[] = [];
  const deferred: ObjectRef[] = [];

  const deadline = scopedAbort(options.signal);
  const outOfTime = `the pass ran out of its ${formatDuration(budgetMs)} budget`;
  const timer = Number.isFinite(budgetMs) ? setTimeout(() => deadline.abort(new AbortedError(outOfTime)), budgetMs) : undefined;
  // Settles ABORT_GRACE_MS after the deadline: objects not wound up by then are left behind.
  const givenUp = new Promise<void>((resolve) => {
    const late = () => setTimeout(resolve, ABORT_GRACE_MS).unref();
    if (deadline.signal.aborted) late();
    else deadline.signal.addEventListener('abort', late, { once: true });
  });

  // Before the objects: a pushed value an earlier version's marker holds is served by this pass.
  if (!options.dryRun) await tidyMarkers(deps, log);

  const worker = async () => {
    for (let ref = queue.shift(); ref; ref = queue.shift()) {
      if (deadline.signal.aborted || deps.clock.now() - startedAt >= budgetMs) {
        deferred.push(ref);
        continue;
      }
      const current = ref;
      const running = reconcileObject(deps, current, { reason, dryRun: options.dryRun }, { log, signal: deadline.signal, occurrence: options.occurrence }).catch((err: unknown): ObjectOutcome => ({ ref: current, status: 'failed', error: errorMessage(err) }));
      const abandoned = givenUp.then((): ObjectOutcome => ({ ref: current, status: 'aborted', reason: `${reasonOf(deadline.signal).message}; still winding up after ${ABORT_GRACE_MS} ms` }));
      outcomes.push(await Promise.race([running, abandoned]));
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    clearTimeout(timer);
    deadline.dispose();
  }

  const enqueued: ObjectRef[] = [];
  const report = (): PassReport => ({ startedAt, finishedAt: deps.clock.now(), outcomes, deferred, enqueued, errors: outcomes.filter((o) => o.status === 'failed' || o.status === 'aborted').length });
  const left = unfinished(report());
  if (!options.dryRun && options.enqueue !== false) {
    for (const ref of left) {
      await deps.queues
        .reconcile({ ...ref, reason: options.signal?.aborted ? 'the host stopped before finishing it' : 'pass budget exhausted' })
        .then(() => enqueued.push(ref))
        .catch((err: unknown) => log.error(`${objectKey(ref)}: could not enqueue after the pass ran out of time: ${errorMessage(err)}`));
    }
    if (left.length) {
      log.warn(
        options.signal?.aborted
          ? `the host is stopping: ${enqueued.length} object(s) not finished were handed to the reconcile queue`
          : `pass budget of ${formatDuration(budgetMs)} reached: ${enqueued.length} object(s) handed to the reconcile queue`,
      );
    }
  }
  if (!options.dryRun && !options.signal?.aborted) {
    // Housekeeping that keeps the log bounded.
    await deps.decisions.prune(deps.clock.now()).catch((err: unknown) => log.warn(`could not prune old decisions: ${errorMessage(err)}`));
  }
  const done = report();
  const aborted = outcomes.filter((o) => o.status === 'aborted').length;
  log.debug?.(`pass finished: ${outcomes.length} reconciled, ${deferred.length} deferred, ${done.errors - aborted} failed, ${aborted} aborted`);
  return done;
}

/** Re-enqueue markers earlier builds left: old kinds removed, pushed values handed to the push rows. */
async function tidyMarkers(deps: PassDeps, log: Log): Promise<void> {
  const markers = deps.queues.markers;
  const offer = (name: string, value: number, landedAt: number | undefined) => {
    const target = deps.config.targets.find((t) => t.name === name);
    return target && pushSourceName(target.load) !== undefined ? deps.stores.pushes.offer(name, value, landedAt) : undefined;
  };
  await tidyPending(deps.stores.pendingRows, (rows) => (markers ? adoptMarkerPushes(rows, { markers, offer }) : Promise.resolve())).catch((err: unknown) =>
    log.warn(`could not tidy the re-enqueue markers: ${errorMessage(err)}`),
  );
}
