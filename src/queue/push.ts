/**
 * A push, as `drover enqueue --load` and the demo make it: the value is written to the target's
 * push row first (its storage order makes it the latest), then a reconcile is asked for, which
 * only wakes the target sooner. A lost or late wake-up costs at most a timer period: every
 * reconcile of the target, the timer's too, reads the row (docs/architecture.md, "How a push travels").
 */
import type { PushStore } from '../load/push-store.js';
import type { QueueSender } from './sender.js';

/** `delayMs` delays the wake-up only: the push is the latest from its write on, and a timer pass meanwhile serves it. */
export async function pushLoad(deps: { pushes: PushStore; queues: Pick<QueueSender, 'reconcile'> }, target: string, value: number, reason: string, delayMs = 0): Promise<{ sent: boolean; dueAt: number }> {
  await deps.pushes.record(target, value);
  return deps.queues.reconcile({ kind: 'target', name: target, reason }, delayMs);
}
