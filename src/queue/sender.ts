/**
 * Sends reconcile and probe messages, optionally delayed. A Functions output binding cannot
 * delay a message, so delays are the queue's visibility timeout, set through the SDK.
 */
import type { QueueClient } from '@azure/storage-queue';
import type { Clock } from '../clock.js';
import type { EntityTable } from '../state/entity-table.js';
import { encodeMessage, type ProbeMessage, type ReconcileMessage } from './messages.js';

/** The queue service's ceiling for a visibility timeout. */
export const MAX_DELAY_MS = 7 * 24 * 3_600_000;
const PENDING_PARTITION = 'pending';

export interface QueueSender {
  /**
   * Asks for `ref` to be reconciled after `delayMs`. Requests for the same object and the same
   * due second collapse into one message, so repeated re-enqueues do not pile up.
   */
  reconcile(message: Omit<ReconcileMessage, 'dueAt'>, delayMs?: number): Promise<{ sent: boolean; dueAt: number }>;
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
    const seconds = Math.ceil(Math.min(Math.max(0, delayMs), MAX_DELAY_MS) / 1000);
    await queue.sendMessage(encodeMessage(body), seconds > 0 ? { visibilityTimeout: seconds } : {});
  };
  return {
    async reconcile(message, delayMs = 0) {
      const now = deps.clock.now();
      const dueAt = Math.ceil((now + Math.max(0, delayMs)) / 1000) * 1000;
      // Pushed load must always arrive: only plain re-enqueues are collapsed.
      if (deps.pending && message.load === undefined) {
        const marker = await deps.pending.create(PENDING_PARTITION, `${message.kind}/${message.name}@${dueAt}`, { dueAt });
        if (!marker) return { sent: false, dueAt };
      }
      await send(deps.reconcileQueue, { ...message, dueAt }, delayMs);
      return { sent: true, dueAt };
    },
    async probe(message, delayMs = 0) {
      await send(deps.probeQueue, message, delayMs);
    },
  };
}

/** Marks a reconcile message as delivered, so a later request for the same due second is sent again. */
export async function markDelivered(pending: EntityTable, message: Pick<ReconcileMessage, 'kind' | 'name' | 'dueAt'>): Promise<void> {
  if (message.dueAt !== undefined) await pending.delete(PENDING_PARTITION, `${message.kind}/${message.name}@${message.dueAt}`);
}

/** Removes "already requested" markers whose due time has passed (their messages were lost or never consumed). */
export async function prunePending(pending: EntityTable, now: number): Promise<number> {
  const rows = await pending.list<{ dueAt: number }>(PENDING_PARTITION);
  const old = rows.filter((r) => r.props.dueAt < now - 60_000);
  await Promise.all(old.map((r) => pending.delete(PENDING_PARTITION, r.rowKey)));
  return old.length;
}
