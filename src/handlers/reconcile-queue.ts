import type { InvocationContext } from '@azure/functions';
import { invocationLog } from '../log.js';
import { messageId } from './trigger.js';
import { decodeMessage, reconcileMessageSchema, type ReconcileMessage } from '../queue/messages.js';
import { afterServed, messageToken, onDelivery, postpone } from '../queue/pending-plan.js';
import type { ReadMarker } from '../queue/pending-store.js';
import type { Markers } from '../queue/sender.js';
import { reconcileObject } from '../reconcile/object.js';
import { objectKey, type ObjectOutcome, type ObjectRef } from '../reconcile/types.js';
import type { Runtime } from '../runtime/runtime.js';

/** How soon a reconcile that found its object busy is tried again. */
const BUSY_RETRY_MS = 5_000;

/**
 * One reconcile message: a forced reconcile or a delayed re-enqueue, served through the
 * object's pending marker (src/queue/pending-plan.ts), so that however many messages name one
 * object, it is reconciled once with the latest pushed value. A malformed message is logged and
 * dropped (returning normally deletes it); a failed reconcile throws so the host retries it and,
 * after maxDequeueCount tries, moves it to the poison queue.
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
  const markers = rt.queues.markers;
  const marker = await markers?.read(ref);
  const delivery = onDelivery(msg, marker?.pending, rt.clock.now());
  if (delivery.kind === 'drop') {
    log.debug?.(`${objectKey(ref)}: message ${messageId(context)} needs nothing: ${delivery.why}`);
    return undefined;
  }
  if (delivery.kind === 'fold') {
    await rt.queues.reconcile({ ...ref, reason: msg.reason, ...(msg.load === undefined ? {} : { load: msg.load }) });
    return undefined;
  }
  const outcome = await reconcileObject(rt, ref, { reason: delivery.reason, load: delivery.load }, { log, signal: rt.shutdown.signal });
  if (markers) await settleMarker(markers, ref, msg, marker, outcome, rt.clock.now());
  else if (outcome.status === 'busy') await rt.queues.reconcile({ ...ref, reason: msg.reason, load: msg.load }, Math.min(BUSY_RETRY_MS, Math.max(0, outcome.until - rt.clock.now())));
  // Cut short (the host is stopping): the message comes back and the reconcile is finished then.
  if (outcome.status === 'aborted') throw new Error(`reconcile of ${objectKey(ref)} aborted: ${outcome.reason}`);
  // Only a failure that may pass is retried (and poisoned after maxDequeueCount); a refusal such
  // as the safety switch is recorded and waits for an operator, not for a retry.
  if (outcome.status === 'failed' && (outcome.decision ? outcome.decision.transient === true : true)) {
    throw new Error(`reconcile of ${objectKey(ref)} failed: ${outcome.error}`);
  }
  return outcome;
}

/** What the outcome makes of the marker: postponed while the lease is held, removed once served. */
async function settleMarker(markers: Markers, ref: ObjectRef, msg: ReconcileMessage, marker: ReadMarker | undefined, outcome: ObjectOutcome, now: number): Promise<void> {
  if (outcome.status === 'busy') {
    // The holder may have read its inputs before this request arrived: look again shortly.
    const retryAt = now + Math.min(BUSY_RETRY_MS, Math.max(0, outcome.until - now));
    // A message from outside brings its own value; the marker's own message brings none.
    const request = msg.dueAt === undefined && msg.load !== undefined ? { reason: msg.reason, load: msg.load } : { reason: msg.reason };
    await markers.change(ref, (current, t) => postpone(current, request, retryAt, msg.dueAt, t, messageToken));
    return;
  }
  // Failed and to be retried: the marker stays for the retried message.
  if (outcome.status === 'aborted' || (outcome.status === 'failed' && (outcome.decision ? outcome.decision.transient === true : true))) return;
  if (!marker || (await markers.consume(marker))) return;
  // A request merged while this one ran: it is served by a message of its own.
  await markers.change(ref, (current, t) => (current ? afterServed(current, msg.dueAt, t, messageToken) : undefined));
}
