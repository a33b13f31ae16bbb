/**
 * Sends reconcile and probe messages, optionally delayed. A Functions output binding cannot
 * delay a message, so delays are the queue's visibility timeout, set through the SDK.
 */
import type { QueueClient } from '@azure/storage-queue';
import type { Clock } from '../clock.js';
import type { EntityTable, Props, Row } from '../state/entity-table.js';
import { encodeMessage, type ProbeMessage, type ReconcileMessage } from './messages.js';
import { isStorageGone, storageError } from '../state/errors.js';
import { mergeRequest, messageToken, type Change, type Pending } from './pending-plan.js';
import { PENDING_PARTITION, type PendingStore, type ReadMarker } from './pending-store.js';

/** The queue service's ceiling for a visibility timeout. */
export const MAX_DELAY_MS = 7 * 24 * 3_600_000;

/**
 * A request to reconcile an object. It carries no pushed value: a push is written to the target's
 * push row first (src/load/push-store.ts), where every reconcile reads it, and the message only
 * wakes a reconcile sooner.
 */
export type WakeUp = Pick<ReconcileMessage, 'kind' | 'name' | 'reason'>;

export interface QueueSender {
  /**
   * Asks for an object to be reconciled `delayMs` from now: the one way to schedule a (delayed)
   * reconcile. Requests for one object collapse into its pending marker (pending-plan.ts): the
   * earliest due time wins, and a message is sent only when none will serve the marker in time.
   * `sent` says whether this request sent one.
   */
  reconcile(message: WakeUp, delayMs?: number): Promise<{ sent: boolean; dueAt: number }>;
  /** The same for an instant (epoch ms on this host's clock), for callers that compute when from stored state. */
  reconcileAt(message: WakeUp, at: number): Promise<{ sent: boolean; dueAt: number }>;
  probe(message: ProbeMessage, delayMs?: number): Promise<void>;
  /**
   * Sends a delivered reconcile message again as it was, visible `delayMs` from now, past the
   * markers: for a message this host's configuration cannot serve but a newer one can.
   */
  putBack(message: ReconcileMessage, delayMs: number): Promise<void>;
  /** The objects' pending markers, for the reconcile queue's handler; absent when requests are not collapsed. */
  readonly markers?: Markers;
}

/** What a marker belongs to (the same shape as reconcile's ObjectRef, which this layer must not import). */
type ObjectRef = Pick<ReconcileMessage, 'kind' | 'name'>;
const objectKey = (ref: ObjectRef) => `${ref.kind}/${ref.name}`;

export interface Markers {
  read(ref: ObjectRef): Promise<ReadMarker | undefined>;
  /** Removes the marker if it is unchanged since `read`; false when a request merged since. */
  consume(read: ReadMarker): Promise<boolean>;
  /** Takes an earlier version's pushed value off the marker if it is unchanged since `read`. */
  dropLoad(read: ReadMarker): Promise<boolean>;
  /** Applies `decide` to the marker (under its ETag) and sends the message the change asks for. */
  change(ref: ObjectRef, decide: (current: Pending | undefined, now: number) => Change | undefined): Promise<Change | undefined>;
}


export function createQueueSender(deps: {
  reconcileQueue: QueueClient;
  probeQueue: QueueClient;
  /** Where the pending markers live; without it every request is a message of its own. */
  pending?: PendingStore;
  clock: Clock;
  /** Makes the tables and queues again when a send finds its queue gone. */
  recreate?: () => Promise<void>;
}): QueueSender {
  const send = async (queue: QueueClient, body: object, delayMs: number) => {
    const seconds = Math.ceil(clampDelay(delayMs) / 1000);
    // A delayed message must not expire (7 days by default) before it becomes visible.
    const options = seconds > 0 ? { visibilityTimeout: seconds, messageTimeToLive: -1 } : {};
    try {
      await queue.sendMessage(encodeMessage(body), options);
    } catch (err) {
      if (!deps.recreate || !isStorageGone(err)) throw storageError(err, `queues/${queue.name} send`);
      // The queue is gone (storage lost it): made again, the message is sent once more.
      await deps.recreate();
      await queue.sendMessage(encodeMessage(body), options).catch((again: unknown) => {
        throw storageError(again, `queues/${queue.name} send`);
      });
    }
  };
  const pending = deps.pending;
  const markers: Markers | undefined = pending && {
    read: (ref) => pending.read(objectKey(ref)),
    consume: (read) => pending.consume(read),
    dropLoad: (read) => pending.dropLoad(read),
    async change(ref, decide) {
      const change = await pending.change(objectKey(ref), (current) => decide(current, deps.clock.now()));
      const sentFor = change?.next?.sentFor;
      if (change?.send === undefined || sentFor === undefined) return change;
      try {
        await send(deps.reconcileQueue, { ...ref, reason: change.next!.reason, dueAt: sentFor }, change.send - deps.clock.now());
      } catch (err) {
        // No message after all: the next request must send one.
        await pending.forgetMessage(objectKey(ref), sentFor).catch(() => undefined);
        throw err;
      }
      return change;
    },
  };
  const reconcileAt = async (message: WakeUp, at: number) => {
    const now = deps.clock.now();
    const dueAt = dueSecond(now, at);
    const { kind, name, reason } = message;
    if (!markers) {
      await send(deps.reconcileQueue, { kind, name, reason, dueAt }, dueAt - now);
      return { sent: true, dueAt };
    }
    const request = { at: dueAt, reason };
    // Requests merged in one write round send one message between them: the one that asked for it says so.
    let asked = false;
    await markers.change({ kind, name }, (current, t) => {
      const change = mergeRequest(current, request, t, messageToken);
      asked = change.send !== undefined;
      return change;
    });
    return { sent: asked, dueAt };
  };
  return {
    reconcile: (message, delayMs = 0) => reconcileAt(message, deps.clock.now() + Math.max(0, delayMs)),
    reconcileAt,
    async probe(message, delayMs = 0) {
      await send(deps.probeQueue, message, delayMs);
    },
    async putBack(message, delayMs) {
      await send(deps.reconcileQueue, message, delayMs);
    },
    ...(markers ? { markers } : {}),
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

/**
 * Tidies what earlier builds left in the pending partition, from one listing of it: removes the
 * markers of the one-per-due-second kind (their row keys end in `@<due>`), and hands the pushed
 * values of the previous version's markers to the push rows (marker-pushes.ts).
 */
export async function tidyPending(pending: EntityTable, adopt: (rows: Row<Props>[]) => Promise<unknown>): Promise<number> {
  const rows = await pending.list<Props>(PENDING_PARTITION);
  const current = rows.filter((r) => !/@\d+$/.test(r.rowKey));
  await adopt(current);
  return (await pending.writeChanged(PENDING_PARTITION, current, rows, { deleteMissing: true })).deleted;
}
