/**
 * Sends reconcile and probe messages, optionally delayed. A Functions output binding cannot
 * delay a message, so delays are the queue's visibility timeout, set through the SDK.
 */
import type { QueueClient } from '@azure/storage-queue';
import type { Clock } from '../clock.js';
import type { EntityTable } from '../state/entity-table.js';
import { encodeMessage, type ProbeMessage, type ReconcileMessage } from './messages.js';
import { storageError } from '../state/errors.js';

/** The queue service's ceiling for a visibility timeout. */
export const MAX_DELAY_MS = 7 * 24 * 3_600_000;
const PENDING_PARTITION = 'pending';

export interface QueueSender {
  /**
   * Asks for `ref` to be reconciled after `delayMs`. Requests for the same object and the same
   * due second collapse into one message, so repeated re-enqueues do not pile up.
   */
  reconcile(message: Omit<ReconcileMessage, 'dueAt'>, delayMs?: number): Promise<{ sent: boolean; dueAt: number }>;
  /**
   * The same for an instant (epoch ms): callers that compute when from stored state (the end of
   * a window) land on the same due second however many deliveries compute it.
   */
  reconcileAt(message: Omit<ReconcileMessage, 'dueAt'>, at: number): Promise<{ sent: boolean; dueAt: number }>;
  probe(message: ProbeMessage, delayMs?: number): Promise<void>;
}

export function createQueueSender(deps: {
  reconcileQueue: QueueClient;
  probeQueue: QueueClient;
  /** Where "already requested" markers live (the leases table); without it nothing is collapsed. */
  pending?: EntityTable;
  clock: Clock;
}): QueueSender {
  const send = async (queue: QueueClient, body: object, delayMs: number) => {
    const seconds = Math.ceil(clampDelay(delayMs) / 1000);
    // A delayed message must not expire (7 days by default) before it becomes visible.
    try {
      await queue.sendMessage(encodeMessage(body), seconds > 0 ? { visibilityTimeout: seconds, messageTimeToLive: -1 } : {});
    } catch (err) {
      throw storageError(err, `queues/${queue.name} send`);
    }
  };
  const reconcileAt = async (message: Omit<ReconcileMessage, 'dueAt'>, at: number) => {
    const now = deps.clock.now();
    const dueAt = dueSecond(now, at);
    const key = `${message.kind}/${message.name}@${dueAt}`;
    // Pushed load must always arrive: only plain re-enqueues are collapsed.
    const collapse = deps.pending !== undefined && message.load === undefined;
    if (collapse && !(await deps.pending!.create(PENDING_PARTITION, key, { dueAt }))) return { sent: false, dueAt };
    try {
      await send(deps.reconcileQueue, { ...message, dueAt }, at - now);
    } catch (err) {
      // No message, no marker: a later request for this second must not be collapsed into nothing.
      if (collapse) await deps.pending!.delete(PENDING_PARTITION, key).catch(() => undefined);
      throw err;
    }
    return { sent: true, dueAt };
  };
  return {
    reconcile: (message, delayMs = 0) => reconcileAt(message, deps.clock.now() + Math.max(0, delayMs)),
    reconcileAt,
    async probe(message, delayMs = 0) {
      await send(deps.probeQueue, message, delayMs);
    },
  };
}

/**
 * The due second of a reconcile wanted at `at`, sent at `now`: the whole second at or after the
 * instant (within the queue's longest delay). Requests due in the same second collapse.
 */
export function dueSecond(now: number, at: number): number {
  return Math.ceil((now + clampDelay(at - now)) / 1000) * 1000;
}

function clampDelay(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_DELAY_MS);
}

/** Marks a reconcile message as delivered, so a later request for the same due second is sent again. */
export async function markDelivered(pending: EntityTable, message: Pick<ReconcileMessage, 'kind' | 'name' | 'dueAt'>): Promise<void> {
  if (message.dueAt !== undefined) await pending.delete(PENDING_PARTITION, `${message.kind}/${message.name}@${message.dueAt}`);
}

/** Removes "already requested" markers whose due time has passed (their messages were lost or never consumed). */
export async function prunePending(pending: EntityTable, now: number): Promise<number> {
  const rows = await pending.list<{ dueAt: number }>(PENDING_PARTITION);
  const current = rows.filter((r) => r.props.dueAt >= now - 60_000);
  return (await pending.writeChanged(PENDING_PARTITION, current, rows, { deleteMissing: true })).deleted;
}
