import type { InvocationContext } from '@azure/functions';
import { invocationLog } from '../log.js';
import { messageId } from './trigger.js';
import { decodeMessage, reconcileMessageSchema } from '../queue/messages.js';
import { busyRetryDelay } from '../queue/retry.js';
import { markDelivered } from '../queue/sender.js';
import { reconcileObject } from '../reconcile/object.js';
import type { ObjectOutcome } from '../reconcile/types.js';
import type { Runtime } from '../runtime/runtime.js';


/**
 * One reconcile message: a forced reconcile or a delayed re-enqueue. A malformed message is
 * logged and dropped (returning normally deletes it); a failed reconcile throws so the host
 * retries it and, after maxDequeueCount tries, moves it to the poison queue.
 */
export async function onReconcileMessage(rt: Runtime, message: unknown, context: InvocationContext): Promise<ObjectOutcome | undefined> {
  const log = invocationLog(context);
  const decoded = decodeMessage(reconcileMessageSchema, message);
  if (!decoded.ok) {
    log.error(`dropping malformed message ${messageId(context)} from ${rt.storage.names.queues.reconcile}: ${decoded.reason}`);
    return undefined;
  }
  const { kind, name, reason, load } = decoded.message;
  // From here on a new request for this object and due second is a new message, not a repeat.
  await markDelivered(rt.table('leases'), decoded.message);
  const outcome = await reconcileObject(rt, { kind, name }, { reason, load }, { log, signal: rt.shutdown.signal });
  if (outcome.status === 'busy') {
    // The holder may have read its inputs before this request arrived: look again shortly.
    await rt.queues.reconcile({ kind, name, reason, load }, busyRetryDelay(rt.clock.now(), outcome.until));
  }
  // Cut short (the host is stopping): the message comes back and the reconcile is finished then.
  if (outcome.status === 'aborted') throw new Error(`reconcile of ${kind}/${name} aborted: ${outcome.reason}`);
  // Only a failure that may pass is retried (and poisoned after maxDequeueCount); a refusal such
  // as the safety switch is recorded and waits for an operator, not for a retry.
  if (outcome.status === 'failed' && (outcome.decision ? outcome.decision.transient === true : true)) {
    throw new Error(`reconcile of ${kind}/${name} failed: ${outcome.error}`);
  }
  return outcome;
}
