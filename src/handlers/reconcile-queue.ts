import type { InvocationContext } from '@azure/functions';
import { errorMessage, invocationLog, type Log } from '../log.js';
import { shortHash } from '../config/sequence.js';
import { messageId } from './trigger.js';
import { decodeMessage, reconcileMessageSchema, type ReconcileMessage } from '../queue/messages.js';
import { latest, type Pending } from '../queue/pending-plan.js';
import { settleDelivery, takeDelivery, type Settled } from '../queue/delivery.js';
import { busyRetryDelay } from '../queue/retry.js';
import { reconcileObject } from '../reconcile/object.js';
import { objectKey, type ObjectOutcome, type ObjectRef } from '../job/context.js';
import type { Runtime } from '../runtime/runtime.js';
import { pushSourceName } from '../load/push-served.js';
import { clampLoad } from '../load/load-number.js';


/**
 * One reconcile message: a wake-up (a push, a forced reconcile, a delayed re-enqueue), served
 * through the object's pending marker (src/queue/pending-plan.ts), so that however many messages
 * name one object it is reconciled once. A pushed value is not the message's: it waits in the
 * target's push row, which every reconcile reads. A value a message still carries (a raw message,
 * an older build's) or a marker still holds (an earlier version's) is offered to that row as of
 * when it reached storage (offerCarried below). A malformed message is logged and dropped
 * (returning normally deletes it); a failed reconcile throws so the host retries it and, after
 * maxDequeueCount tries, moves it to the poison queue.
 */
export async function onReconcileMessage(rt: Runtime, message: unknown, context: InvocationContext): Promise<ObjectOutcome | undefined> {
  const log = invocationLog(context);
  const decoded = decodeMessage(reconcileMessageSchema, message);
  if (!decoded.ok) {
    log.error(`dropping malformed message ${messageId(context)} from ${rt.storage.names.queues.reconcile}: ${decoded.reason}`);
    return undefined;
  }
  const msg = decoded.message;
  const ref: ObjectRef = { kind: msg.kind, name: msg.name };
  await announceConfiguration(rt, log);
  if (!known(rt, ref)) return forNewerConfiguration(rt, ref, msg, log, messageId(context));
  const carried = msg.load === undefined ? {} : { load: msg.load, loadAt: insertionTime(context) };
  const markers = rt.queues.markers;
  const { delivery, taken } = markers ? await takeDelivery(markers, ref, msg, carried) : { delivery: { kind: 'serve', reason: msg.reason } as const, taken: undefined };
  // Folded: the value waits in the marker, whose delivery offers it. Otherwise it is offered now.
  if (delivery.kind === 'fold') return undefined;
  await offerCarried(rt, ref, delivery.kind === 'serve' ? latest(taken, carried) : carried, log);
  if (delivery.kind === 'drop') {
    log.debug?.(`${objectKey(ref)}: message ${messageId(context)} needs nothing: ${delivery.why}`);
    return undefined;
  }
  const outcome = await reconcileObject(rt, ref, { reason: delivery.reason }, { log, signal: rt.shutdown.signal });
  if (markers) await settleDelivery(markers, ref, msg, taken, settled(outcome), rt.clock.now());
  else if (outcome.status === 'busy') await rt.queues.reconcile({ ...ref, reason: msg.reason }, busyRetryDelay(rt.clock.now(), outcome.until));
  // Cut short (the host is stopping): the message comes back and the reconcile is finished then.
  if (outcome.status === 'aborted') throw new Error(`reconcile of ${objectKey(ref)} aborted: ${outcome.reason}`);
  // Only a failure that may pass is retried (and poisoned after maxDequeueCount); a refusal such
  // as the safety switch is recorded and waits for an operator, not for a retry.
  if (outcome.status === 'failed' && retried(outcome)) {
    throw new Error(`reconcile of ${objectKey(ref)} failed: ${outcome.error}`);
  }
  return outcome;
}

/** When the queue service took the message in (its trigger metadata), on the storage service's clock. */
function insertionTime(context: InvocationContext): number | undefined {
  const at = Date.parse(String(context.triggerMetadata?.insertionTime ?? ''));
  return Number.isFinite(at) ? at : undefined;
}

/** A value a message or a marker carried, offered to the target's push row as of when it reached storage. */
async function offerCarried(rt: Runtime, ref: ObjectRef, { load: value, loadAt: landedAt }: Pick<Pending, 'load' | 'loadAt'>, log: Log): Promise<void> {
  if (value === undefined) return;
  const target = ref.kind === 'target' ? rt.config.targets.find((t) => t.name === ref.name) : undefined;
  if (!target || pushSourceName(target.load) === undefined) {
    log.warn(`${objectKey(ref)}: pushed load ${value} ignored: it has no push source`);
    return;
  }
  const load = clampLoad(value);
  if (load) await rt.stores.pushes.offer(ref.name, load.value, landedAt);
}

/** The object a reconcile message names (its lane in the local host), when it decodes. */
export function reconcileLane(message: unknown): string | undefined {
  const decoded = decodeMessage(reconcileMessageSchema, message);
  return decoded.ok ? objectKey({ kind: decoded.message.kind, name: decoded.message.name }) : undefined;
}

/** Raises the `config/newest` row to this host's sequence (at most one read every few minutes). */
export async function announceConfiguration(rt: Runtime, log: Log): Promise<void> {
  await rt.configuration.newest.announce().catch((err: unknown) => log.warn(`configuration: could not record seq ${rt.configuration.seq} as the newest: ${errorMessage(err)}`));
}

/** How long a message for an object that only a newer configuration has waits before it is delivered again. */
export const PUT_BACK_MS = 5_000;

/**
 * A message for an object this host's configuration does not have: a target added by a newer
 * configuration mid-deploy (put back with a delay, for a host that has it), or one removed
 * (dropped with a line saying so). Which it is, the `config/newest` row tells.
 */
async function forNewerConfiguration(rt: Runtime, ref: ObjectRef, msg: ReconcileMessage, log: Log, id: string): Promise<ObjectOutcome> {
  const mine = rt.configuration.seq;
  const newer = await rt.configuration.newest.newerLive();
  if (newer === undefined) {
    log.warn(`dropping message ${id} for ${objectKey(ref)}: not in this host's configuration (seq ${mine}), and no newer configuration runs`);
  } else {
    await rt.queues.putBack(msg, PUT_BACK_MS);
    log.debug?.(`${objectKey(ref)}: not in this host's configuration (seq ${mine}); message ${id} put back for ${PUT_BACK_MS / 1000} s, for the newer one (seq ${newer.seq}, configuration ${shortHash(newer.hash)})`);
  }
  return { ref, status: 'unknown' };
}

function known(rt: Runtime, ref: ObjectRef): boolean {
  return ref.kind === 'pool' ? rt.config.pools.some((p) => p.name === ref.name) : rt.config.targets.some((t) => t.name === ref.name);
}

/** What the reconcile's outcome asks of the message's marker. */
function settled(outcome: ObjectOutcome): Settled {
  if (outcome.status === 'busy') return { kind: 'busy', until: outcome.until };
  return retried(outcome) ? { kind: 'retry' } : { kind: 'done' };
}

/** Not finished and to be retried: aborted, or failed by what may pass. */
function retried(outcome: ObjectOutcome): boolean {
  return outcome.status === 'aborted' || (outcome.status === 'failed' && (outcome.decision ? outcome.decision.transient === true : true));
}
