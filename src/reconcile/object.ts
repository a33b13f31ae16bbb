/**
 * Reconciles one pool or target: through the reconciler for its kind, under its lease from the
 * pass's first write on (a pass that writes nothing takes none), with the outcome written to the
 * decision log. The timer pass and both queue functions all come through here, so an object
 * behaves the same whatever woke it.
 */
import { randomUUID } from 'node:crypto';
import { isTransient } from '../errors/transient.js';
import { errorMessage, type Log } from '../log.js';
import { reasonOf } from '../deadline.js';
import { isLeaseExpired, LEASE_TTL_MS } from '../state/leases.js';
import { isLeaseRefused, LeaseOnWrite, type LeaseRefusedError, type PassLease } from '../state/lease-on-write.js';
import { SamplesChangedError } from '../load/sample-store.js';
import { BUSY_RETRY_MS } from '../queue/retry.js';
import type { Clock } from '../clock.js';
import type { DroverConfig, PoolConfig, TargetConfig } from '../config/schema.js';
import type { DecisionLog } from '../state/decisions.js';
import type { HistoryStore } from '../state/history-store.js';
import type { Leases } from '../state/leases.js';
import { reconcilePool, type PoolJobDeps } from '../pool/reconcile-pool.js';
import { TARGET_MAX_VMS, scopedDeps } from '../job/scope.js';
import { reconcileTarget } from '../scaler/write/reconcile-target.js';
import { targetPassDeps, type TargetJobDeps } from '../scaler/write/target-pass-deps.js';
import { isLeftAlone } from '../job/config-stamp.js';
import { objectKey, type Decision, type ObjectOutcome, type ObjectRef, type ReconcileRequest } from '../job/context.js';

/**
 * Decisions that change nothing, repeated on every tick: logged at debug level, so that what a
 * log shows by default is what changed. (The decision log keeps them all.)
 */
const ROUTINE = /^(steady at|unchanged|no metrics|at limit|activating|waiting to scale to zero|backed off|rate limited)\b/;

export { LEASE_TTL_MS };

/**
 * What reconciling any one object uses: the parts its kind's job takes, the leases, the
 * decision log and the history. Built once by the composition root (src/runtime/runtime.ts).
 */
export type ObjectDeps = PoolJobDeps &
  TargetJobDeps & {
    readonly config: Pick<DroverConfig, 'pools' | 'targets'>;
    readonly clock: Clock;
    readonly holder: string;
    readonly leases: Leases;
    readonly decisions: Pick<DecisionLog, 'record'>;
    readonly history: Pick<HistoryStore, 'record'>;
  };

/** The pass itself, through the reconciler for the object's kind, and what it saw into the history. */
async function reconcileUnder(
  deps: ObjectDeps,
  ref: ObjectRef,
  request: ReconcileRequest,
  { pool, target, log, lease, signal }: { pool?: PoolConfig; target?: TargetConfig; log: Log; lease: PassLease; signal: AbortSignal },
): Promise<Decision> {
  const scoped = scopedDeps(deps, { signal, maxVms: pool ? pool.instanceLimit : TARGET_MAX_VMS });
  const ctx = { ...request, deps: scoped, ref, lease, log, signal };
  const { observed, ...decided } = pool ? await reconcilePool(ctx, pool) : await reconcileTarget(await targetPassDeps(ctx, target!), target!, request);
  // Under the checked lease, so an older holder's row never lands after a newer one's; a history
  // that cannot be written costs the timeline a point, not the decision (nor, refused, the pass).
  if (observed && !request.dryRun) {
    await deps.history
      .record(objectKey(ref), observed, deps.clock.now(), () => lease.check())
      .catch((err: unknown) => {
        // Another holder took the object meanwhile: its pass records what it sees.
        if (isLeaseRefused(err)) log.debug?.(`${objectKey(ref)}: history left to ${err.heldBy}`);
        else log.warn(`${objectKey(ref)}: could not write its history: ${errorMessage(err)}`);
      });
  }
  return decided;
}

/** Another holder has the object (or took it for this occurrence): this pass wrote nothing. */
function refusedOutcome(ref: ObjectRef, refused: LeaseRefusedError, log: Log): ObjectOutcome {
  if (refused.claimedFor !== undefined) return { ref, status: 'claimed', by: refused.heldBy, occurrence: refused.claimedFor };
  log.debug?.(`${objectKey(ref)}: being reconciled by ${refused.heldBy} until ${new Date(refused.until).toISOString()}, skipping`);
  return { ref, status: 'busy', heldBy: refused.heldBy, until: refused.until };
}

/**
 * Another reconcile wrote the target's samples between this pass's read and its write (a pass
 * takes the lease at its first write, so two passes may read alike: a slow source, a timer
 * faster than it). The samples are a pass's first write, so this one wrote nothing: like a pass
 * that found the object held, it is tried again from what the other wrote, never counted as a
 * failure (a queued message would otherwise go to the poison queue after a few such races).
 */
function lostRaceOutcome(ref: ObjectRef, err: SamplesChangedError, now: number, log: Log): ObjectOutcome {
  log.debug?.(`${objectKey(ref)}: ${err.message}; tried again from what the other reconcile wrote`);
  return { ref, status: 'busy', heldBy: 'another reconcile, which wrote the samples first', until: now + BUSY_RETRY_MS };
}

export async function reconcileObject(
  deps: ObjectDeps,
  ref: ObjectRef,
  request: ReconcileRequest,
  /** `occurrence`: the timer occurrence to claim the object for with its lease (pass.ts). */
  options: { log: Log; signal?: AbortSignal; occurrence?: number },
): Promise<ObjectOutcome> {
  const { log, signal } = options;
  const pool = ref.kind === 'pool' ? deps.config.pools.find((p) => p.name === ref.name) : undefined;
  const target = ref.kind === 'target' ? deps.config.targets.find((t) => t.name === ref.name) : undefined;
  if (!pool && !target) {
    log.warn(`${objectKey(ref)}: not in the configuration, nothing to reconcile`);
    return { ref, status: 'unknown' };
  }

  let decision: Decision;
  // One holder per invocation: two invocations in one process (the timer and a queue message,
  // or a batch of messages) must not share a lease. A dry run writes no table entity, a lease
  // row included; any other pass takes the lease at its first write (state/lease-on-write.ts).
  const holder = `${deps.holder}:${randomUUID().slice(0, 8)}`;
  const claim = options.occurrence === undefined ? undefined : { occurrence: options.occurrence, by: deps.holder };
  const lease = request.dryRun ? undefined : new LeaseOnWrite(deps.leases, deps.clock, objectKey(ref), holder, LEASE_TTL_MS, { signal, claim });
  try {
    const passLease: PassLease = lease ?? { check: () => Promise.resolve(), remainingMs: () => LEASE_TTL_MS };
    decision = await reconcileUnder(deps, ref, request, { pool, target, log, lease: passLease, signal: lease?.signal ?? signal ?? new AbortController().signal });
  } catch (err) {
    if (isLeaseRefused(err)) return refusedOutcome(ref, err, log);
    if (err instanceof SamplesChangedError) return lostRaceOutcome(ref, err, deps.clock.now(), log);
    const error = errorMessage(err);
    decision = isLeaseExpired(err)
      ? { decision: 'stopped', reason: `the lease ran out mid-pass, the next pass starts over (${error})` }
      : { decision: 'failed', reason: error, error, transient: isTransient(err) };
  } finally {
    await lease?.release();
  }

  // Whatever the reconcile made of its calls failing, an abort from outside means unfinished.
  const aborted = signal?.aborted && (decision.error !== undefined || decision.decision === 'stopped') ? reasonOf(signal).message : undefined;
  if (aborted) decision = { decision: 'aborted', reason: `${aborted}; handed on to be finished later`, error: decision.error ?? aborted, transient: true };
  const line = `${objectKey(ref)}: ${decision.decision} — ${decision.reason}`;
  if (decision.error) log.error(line);
  else if (ROUTINE.test(decision.decision) || isLeftAlone(decision)) log.debug?.(line);
  else log.info(line);
  // An object left to a newer configuration gets no write from this host, its decision log included (status names it).
  if (!request.dryRun && !isLeftAlone(decision)) {
    await deps.decisions
      .record({ at: deps.clock.now(), object: objectKey(ref), ...decision })
      .catch((err: unknown) => log.warn(`${objectKey(ref)}: could not write the decision log: ${errorMessage(err)}`));
  }
  if (aborted) return { ref, status: 'aborted', reason: aborted };
  return decision.error ? { ref, status: 'failed', error: decision.error, decision } : { ref, status: 'done', decision, wrote: lease?.taken ?? false };
}
