/**
 * The pending marker: at most one per object, holding what is asked of it (the earliest due
 * time, the reason) and which queue message will serve it. What each request, delivery and busy
 * lease makes of it is decided here, on plain data and `now`; the store (pending-store.ts) reads
 * and writes the row. So a flood of requests for one object collapses into one marker and at
 * most one message in the queue. A pushed value is not the marker's to keep: it waits in the
 * target's push row (src/load/push-store.ts), which every reconcile reads; a marker holds one
 * only from a raw message or the previous version, until a delivery or timer pass offers it there.
 */

/** The marker as this host sees it, its times on this host's clock. */
export interface Pending {
  /** When the object should be reconciled (the earliest request). */
  dueAt: number;
  reason: string;
  /**
   * A pushed value not yet served that a raw message carried, or an earlier version's marker held
   * (pushes now land in the target's push row, src/load/push-store.ts): the delivery or timer pass
   * that meets it offers it there, as of `loadAt` (when it reached storage, on the service's clock).
   */
  load?: number;
  loadAt?: number;
  /** Set while the object's lease is held elsewhere: a request due sooner would find it held too. */
  held: boolean;
  /** When the marker's message becomes visible; undefined when it has none. */
  sentAt?: number;
  /** The `dueAt` field of the marker's message, which names the message to its marker. */
  sentFor?: number;
}

export interface Request {
  at: number;
  reason: string;
  /** A value a raw message carried, and when it reached the queue (service clock). */
  load?: number;
  loadAt?: number;
}

type Carried = Pick<Pending, 'load' | 'loadAt'>;

/** Of a marker's value and a request's, the one that reached storage later (a time unknown: the request's). */
export function latest(current: Carried | undefined, request: Carried): Carried {
  const keep = request.load === undefined || (current?.load !== undefined && current.loadAt !== undefined && request.loadAt !== undefined && current.loadAt > request.loadAt);
  const from = keep ? current : request;
  return { load: from?.load, loadAt: from?.loadAt };
}

/** What to write, and the visible time of a message to send for it (when one must be). */
export interface Change {
  /** The marker after the change; undefined: removed (a served delivery took it). */
  next: Pending | undefined;
  send?: number;
}

/** A message's `dueAt`: its visible time to the second, with random milliseconds that name it to its marker. */
export function messageToken(at: number): number {
  return Math.floor(Math.max(0, at) / 1000) * 1000 + Math.floor(Math.random() * 1000);
}

/** A marker whose message should have been delivered this long ago has lost it (a wiped or restarted queue). */
export const LOST_AFTER_MS = 60_000;

function needsMessage(current: Pending | undefined, dueAt: number, now: number, gone?: number): boolean {
  if (current?.sentAt === undefined || current.sentFor === undefined) return true;
  if (gone !== undefined && current.sentFor === gone) return true;
  if (current.sentAt < now - LOST_AFTER_MS) return true;
  return dueAt < current.sentAt - 1_000;
}

function withMessage(next: Pending, send: number | undefined, token: (at: number) => number): Change {
  if (send === undefined) return { next };
  return { next: { ...next, sentAt: send, sentFor: token(send) }, send };
}

/** A reconcile asked for at `request.at`: merged into the marker; a message only if none will come in time. */
export function mergeRequest(current: Pending | undefined, request: Request, now: number, token: (at: number) => number): Change {
  const carried = latest(current, request);
  if (!current) return withMessage({ dueAt: request.at, reason: request.reason, ...carried, held: false }, Math.max(now, request.at), token);
  if (current.held && current.dueAt > now) {
    // The lease is held until then: a sooner message would only find it held.
    const next = { ...current, ...carried };
    return withMessage(next, needsMessage(current, current.dueAt, now) ? current.dueAt : undefined, token);
  }
  const sooner = request.at < current.dueAt;
  const next: Pending = { ...current, dueAt: sooner ? request.at : current.dueAt, reason: sooner ? request.reason : current.reason, ...carried, held: false };
  return withMessage(next, needsMessage(current, next.dueAt, now) ? Math.max(now, next.dueAt) : undefined, token);
}

/**
 * A delivery found the lease held until `retryAt`: everything pending waits for then. The
 * message being delivered (`delivered`, its `dueAt`) goes away, so if it was the marker's, another is sent.
 */
export function postpone(current: Pending | undefined, request: Omit<Request, 'at'>, retryAt: number, delivered: number | undefined, now: number, token: (at: number) => number): Change {
  const next: Pending = { ...current, dueAt: retryAt, reason: current?.reason ?? request.reason, ...latest(current, request), held: true };
  return withMessage(next, needsMessage(current, retryAt, now, delivered) ? retryAt : undefined, token);
}

/**
 * A served delivery takes the marker before it reconciles, so what is asked while it runs (its
 * own next poll, a push) makes a marker of its own. When the reconcile does not finish (aborted,
 * or failed to be retried) the delivered message comes back: the requests it took are put back,
 * merged with any made since, and the marker names that message, so its return serves them.
 */
export function putBack(current: Pending | undefined, taken: Pending, delivered: number | undefined, now: number): Change {
  const owed: Pending = current
    ? { ...current, dueAt: Math.min(current.dueAt, taken.dueAt), ...latest(taken, current), held: false }
    : { dueAt: taken.dueAt, reason: taken.reason, ...(taken.load === undefined ? {} : { load: taken.load, loadAt: taken.loadAt }), held: false };
  // An outside message (no dueAt) cannot be named: a marker with no message of its own keeps
  // the one it has, and the next request sends one.
  if (delivered === undefined || owed.sentFor !== undefined) return { next: owed };
  return { next: { ...owed, sentAt: now, sentFor: delivered } };
}

export type Delivery =
  | { kind: 'serve'; reason: string; load?: number }
  /** A message from outside (no `dueAt`) while the lease is held and the marker's message will retry: it joins the marker. */
  | { kind: 'fold' }
  | { kind: 'drop'; why: string };

/**
 * What to do with a delivered message, given the object's marker. A message from outside is
 * served at once unless the lease is held and the marker's own message will try again, which
 * serves it too: so a flood of them costs a share of a marker write each while one reconcile
 * runs, not a reconcile each.
 */
export function onDelivery(message: { reason: string; load?: number; dueAt?: number }, current: Pending | undefined, now: number): Delivery {
  if (message.dueAt === undefined) {
    // The lease is held and the marker's message will try again: it serves this value too.
    const coming = current?.held === true && current.sentAt !== undefined && current.sentAt >= now - LOST_AFTER_MS;
    return coming ? { kind: 'fold' } : { kind: 'serve', reason: message.reason, load: message.load ?? current?.load };
  }
  if (!current) {
    // A message that carries its value (from an older build) is served whatever.
    if (message.load !== undefined) return { kind: 'serve', reason: message.reason, load: message.load };
    return { kind: 'drop', why: 'its request was already served' };
  }
  if (current.dueAt > now + 1_000 && current.sentFor !== message.dueAt) return { kind: 'drop', why: 'its request waits for a later message' };
  return { kind: 'serve', reason: current.reason, load: current.load ?? message.load };
}
