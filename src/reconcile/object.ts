/**
 * Reconciles one pool or target: under its lease, through the reconciler for its kind, with
 * the outcome written to the decision log. The timer pass and both queue functions all come
 * through here, so an object behaves the same whatever woke it.
 */
import { randomUUID } from 'node:crypto';
import { isTransient } from '../errors/transient.js';
import { errorMessage, type Log } from '../log.js';
import { reasonOf } from '../deadline.js';
import { isLeaseExpired, LEASE_TTL_MS, withLease } from '../state/leases.js';
import type { Runtime } from '../runtime/runtime.js';
import { renewingPastHalf } from './lease-ttl.js';
import { reconcilePool } from './pool.js';
import { TARGET_MAX_VMS, scopedRuntime } from './scope.js';
import { reconcileTarget } from './target.js';
import { targetPassDeps } from './target-deps.js';
import { isLeftAlone } from './config-stamp.js';
import { objectKey, type Decision, type ObjectOutcome, type ObjectRef, type ReconcileContext, type ReconcileRequest } from './types.js';

/**
 * Decisions that change nothing, repeated on every tick: logged at debug level, so that what a
 * log shows by default is what changed. (The decision log keeps them all.)
 */
const ROUTINE = /^(steady at|unchanged|no metrics|at limit|activating|waiting to scale to zero|backed off|rate limited)\b/;

export { LEASE_TTL_MS };

export async function reconcileObject(
  rt: Runtime,
  ref: ObjectRef,
  request: ReconcileRequest,
  /** `occurrence`: the timer occurrence to claim the object for with its lease (pass.ts). */
  options: { log: Log; signal?: AbortSignal; occurrence?: number },
): Promise<ObjectOutcome> {
  const { log, signal } = options;
  const pool = ref.kind === 'pool' ? rt.config.pools.find((p) => p.name === ref.name) : undefined;
  const target = ref.kind === 'target' ? rt.config.targets.find((t) => t.name === ref.name) : undefined;
  if (!pool && !target) {
    log.warn(`${objectKey(ref)}: not in the configuration, nothing to reconcile`);
    return { ref, status: 'unknown' };
  }

  let decision: Decision;
  try {
    // One holder per invocation: two invocations in one process (the timer and a queue
    // message, or a batch of messages) must not share a lease.
    const holder = `${rt.holder}:${randomUUID().slice(0, 8)}`;
    // The lease's signal: aborted by the caller's (pass deadline, shutdown) or a lost lease.
    const work = async (lease: ReconcileContext['lease'], leaseSignal: AbortSignal) => {
      const scoped = scopedRuntime(rt, { signal: leaseSignal, maxVms: pool ? pool.instanceLimit : TARGET_MAX_VMS });
      const ctx = { ...request, rt: scoped, ref, lease, log, signal: leaseSignal };
      const { observed, ...decided } = pool ? await reconcilePool(ctx, pool) : await reconcileTarget(await targetPassDeps(ctx, target!), target!, request);
      // Under a checked lease, so an older holder's row never lands after a newer one's (with
      // more than half of it left nobody else can hold it: no renewal); a history that cannot
      // be written costs the timeline a point, not the decision.
      if (observed && !request.dryRun) {
        await renewingPastHalf(lease)
          .check()
          .then(() => rt.history.record(objectKey(ref), observed, rt.clock.now()))
          .catch((err: unknown) => log.warn(`${objectKey(ref)}: could not write its history: ${errorMessage(err)}`));
      }
      return decided;
    };
    // A dry run writes no table entity, a lease row included.
    const leased = request.dryRun
      ? { ran: true as const, value: await work({ check: () => Promise.resolve(), remainingMs: () => LEASE_TTL_MS }, signal ?? new AbortController().signal) }
      : await withLease(rt.leases, rt.clock, objectKey(ref), holder, LEASE_TTL_MS, (lease) => work(lease, lease.signal), { signal, claim: options.occurrence === undefined ? undefined : { occurrence: options.occurrence, by: rt.holder } });
    if (!leased.ran && leased.claimedFor !== undefined) return { ref, status: 'claimed', by: leased.heldBy, occurrence: leased.claimedFor };
    if (!leased.ran) {
      log.debug?.(`${objectKey(ref)}: being reconciled by ${leased.heldBy} until ${new Date(leased.until).toISOString()}, skipping`);
      return { ref, status: 'busy', heldBy: leased.heldBy, until: leased.until };
    }
    decision = leased.value;
  } catch (err) {
    const error = errorMessage(err);
    decision = isLeaseExpired(err)
      ? { decision: 'stopped', reason: `the lease ran out mid-pass, the next pass starts over (${error})` }
      : { decision: 'failed', reason: error, error, transient: isTransient(err) };
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
    await rt.decisions
      .record({ at: rt.clock.now(), object: objectKey(ref), ...decision })
      .catch((err: unknown) => log.warn(`${objectKey(ref)}: could not write the decision log: ${errorMessage(err)}`));
  }
  if (aborted) return { ref, status: 'aborted', reason: aborted };
  return decision.error ? { ref, status: 'failed', error: decision.error, decision } : { ref, status: 'done', decision };
}
