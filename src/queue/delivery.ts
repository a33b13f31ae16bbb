/**
 * A reconcile message's delivery through the object's pending marker (pending-plan.ts): what the
 * queue handler asks before and after it reconciles. `take` decides the delivery in one write
 * round of the marker; `settle` makes of the marker what the reconcile's outcome asks. Pushed
 * values are not decided here: they wait in the target's push row, which the reconcile reads.
 */
import type { ReconcileMessage } from './messages.js';
import { mergeRequest, messageToken, onDelivery, postpone, putBack, type Delivery, type Pending } from './pending-plan.js';
import { busyRetryDelay } from './retry.js';
import type { Markers } from './sender.js';

type ObjectRef = Pick<ReconcileMessage, 'kind' | 'name'>;

/** A value a raw or older message carried, and when it reached the queue (service clock). */
export type Carried = Pick<Pending, 'load' | 'loadAt'>;

/**
 * Decides the delivery on the marker in one write round of it: a message from outside folds its
 * value into the marker while the lease is held; a served delivery takes the marker (removes it,
 * whatever was merged into it) in the same round, so what is asked while its reconcile runs (its
 * own next poll, a push) makes a new marker. A flood for one object in this process shares one
 * read and one write a round, and the take never races this process's own writes of the marker.
 */
export async function takeDelivery(markers: Markers, ref: ObjectRef, msg: ReconcileMessage, carried: Carried): Promise<{ delivery: Delivery; taken?: Pending }> {
  let delivery: Delivery = { kind: 'serve', reason: msg.reason };
  let taken: Pending | undefined;
  await markers.change(ref, (current, now) => {
    delivery = onDelivery(msg, current, now);
    taken = undefined;
    if (delivery.kind === 'fold') return mergeRequest(current, { at: now, reason: msg.reason, ...carried }, now, messageToken);
    if (delivery.kind === 'drop') return undefined;
    taken = current;
    return current ? { next: undefined } : undefined;
  });
  return { delivery, taken };
}

/** How the reconcile a delivery ran ended, as far as its marker cares. */
export type Settled = { kind: 'busy'; until: number } | { kind: 'retry' } | { kind: 'done' };

/** What the outcome makes of the marker: postponed while the lease is held, put back when the message will come again. */
export async function settleDelivery(markers: Markers, ref: ObjectRef, msg: ReconcileMessage, taken: Pending | undefined, outcome: Settled, now: number): Promise<void> {
  if (outcome.kind === 'busy') {
    // The holder may have read its inputs before this request arrived: look again shortly.
    const retryAt = now + busyRetryDelay(now, outcome.until);
    const request = { reason: taken?.reason ?? msg.reason };
    await markers.change(ref, (current, t) => postpone(current, request, retryAt, msg.dueAt, t, messageToken));
    return;
  }
  // Not finished and to be retried: the message comes back, and serves what it took then.
  if (taken && outcome.kind === 'retry') await markers.change(ref, (current, t) => putBack(current, taken, msg.dueAt, t));
}
