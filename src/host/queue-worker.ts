/**
 * Polls one storage queue and hands each message to a function handler with the semantics
 * of the Functions queue trigger: messages leased while they run, deleted on success, made
 * visible again after `visibilityTimeout` on failure, and moved to `<queue>-poison` once they
 * have failed `maxDequeueCount` times. Polling backs off to `maxPollingInterval` when idle.
 *
 * Unlike the Functions host, it reads a backlog ahead (32 a receive, up to MAX_HELD held) and
 * runs what it holds fairly: one lane per object (`laneOf`), the lanes taking turns, at most
 * `batchSize` of a lane and `batchSize + newBatchThreshold` in all at once, and deletes beside
 * the handlers. So a flood for one object, however long, delays another object's message by
 * about one receive per 32 messages ahead of it, not by the flood's handling.
 */
import type { QueueClient, DequeuedMessageItem } from '@azure/storage-queue';
import { pause } from '../clock.js';
import { errorMessage, type Log } from '../log.js';
import { isStorageGone } from '../state/errors.js';
import type { QueueHostSettings } from './host-settings.js';
import { logHandlerFor, newInvocationContext, type AnyInvocationContext } from './invocation.js';
import { Lanes } from './lanes.js';

export type QueueHandler = (message: unknown, context: AnyInvocationContext) => Promise<unknown>;

/** How long a message stays hidden once received, waiting or running (the host renews; we use a long lease). */
const IN_FLIGHT_VISIBILITY_S = 300;
/** A held message not started by then is let go: its invisibility ends soon after, and it comes back. */
const HELD_LIMIT_MS = (IN_FLIGHT_VISIBILITY_S - 30) * 1000;
const MIN_POLL_MS = 100;
/** Messages one receive asks for: the most the service gives, so a backlog is read ahead in few calls. */
const RECEIVE_BATCH = 32;
/** Messages held at most, waiting, running or being deleted; past it, receiving waits. */
export const MAX_HELD = 4_096;
/** Deletes of handled messages under way at once, beside the handlers. */
const STORAGE_CALLS_AT_ONCE = 4;

export interface QueueWorkerOptions {
  functionName: string;
  queue: QueueClient;
  poison: QueueClient;
  handler: QueueHandler;
  settings: QueueHostSettings;
  log: Log;
  signal: AbortSignal;
  /** Makes the tables and queues again when polling finds the queue gone. */
  recreate?: () => Promise<void>;
  /** The lane of a decoded message (the object it names): messages of one lane take turns with other lanes'. */
  laneOf?: (payload: unknown) => string | undefined;
  /** Milliseconds on a monotonic clock, which times how long a message is held (default `performance.now`; tests move their own). */
  now?: () => number;
  /** Removes a handled message from the queue (default: delete it before deliver returns). */
  complete?: (msg: DequeuedMessageItem) => Promise<unknown> | void;
}

/**
 * Decodes a queue body as the trigger does: base64 first when host.json asks for it (a body that
 * is not base64 then fails, as in Azure), then JSON if it parses. Drover's host.json says
 * `none`, so raw JSON and base64 JSON both reach the handler, which decodes either.
 */
export function triggerPayload(text: string, encoding: QueueHostSettings['messageEncoding']): unknown {
  let body = text;
  if (encoding === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new Error('the message is not valid base64 (host.json messageEncoding is base64)');
    body = Buffer.from(text, 'base64').toString('utf8');
  }
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

/** Handles one received message; exported so tests can drive single deliveries. */
export async function deliver(opts: QueueWorkerOptions, msg: DequeuedMessageItem, decoded?: unknown): Promise<'done' | 'retry' | 'poisoned'> {
  const { queue, poison, settings, log } = opts;
  try {
    const payload = decoded === undefined ? triggerPayload(msg.messageText, settings.messageEncoding) : decoded;
    const context = newInvocationContext(opts.functionName, {
      id: msg.messageId,
      dequeueCount: msg.dequeueCount,
      insertionTime: msg.insertedOn.toISOString(),
      expirationTime: msg.expiresOn.toISOString(),
      nextVisibleTime: msg.nextVisibleOn.toISOString(),
      popReceipt: msg.popReceipt,
    }, logHandlerFor(opts.functionName, log));
    await opts.handler(payload, context);
    await (opts.complete ? opts.complete(msg) : queue.deleteMessage(msg.messageId, msg.popReceipt));
    log.debug?.(`${opts.functionName}: executed message ${msg.messageId} (dequeue count ${msg.dequeueCount})`);
    return 'done';
  } catch (err) {
    if (msg.dequeueCount >= settings.maxDequeueCount) {
      log.error(`${opts.functionName}: message ${msg.messageId} failed ${msg.dequeueCount} times, moving it to ${poison.name}: ${errorMessage(err)}`);
      await poison.sendMessage(msg.messageText);
      await queue.deleteMessage(msg.messageId, msg.popReceipt);
      return 'poisoned';
    }
    log.warn(`${opts.functionName}: message ${msg.messageId} failed (try ${msg.dequeueCount} of ${settings.maxDequeueCount}): ${errorMessage(err)}`);
    await queue.updateMessage(msg.messageId, msg.popReceipt, undefined, Math.ceil(settings.visibilityTimeoutMs / 1000));
    return 'retry';
  }
}

/** Runs until `signal` aborts; resolves once the messages under way are finished and the waiting ones let go. */
export async function runQueueWorker(opts: QueueWorkerOptions): Promise<void> {
  const { settings, signal } = opts;
  const held = new HeldMessages(opts);
  let delay = 0;
  while (!signal.aborted) {
    if (held.count >= MAX_HELD) {
      await held.anySettled();
      continue;
    }
    const received = await receive(opts);
    held.add(received);
    delay = received.length > 0 ? 0 : Math.min(settings.maxPollingIntervalMs, Math.max(MIN_POLL_MS, delay * 2));
    if (delay > 0) await pause(delay, signal);
  }
  await held.stop();
}

/**
 * The messages a worker holds: waiting in their lanes, running (at most `batchSize` of a lane
 * and `batchSize + newBatchThreshold` in all), or being deleted beside the handlers.
 */
class HeldMessages {
  private readonly lanes: Lanes<Held>;
  private readonly running = new Set<Promise<void>>();
  private readonly background = new Background(STORAGE_CALLS_AT_ONCE);
  private readonly worker: QueueWorkerOptions;
  private readonly maxRunning: number;
  private readonly now: () => number;

  constructor(private readonly opts: QueueWorkerOptions) {
    this.lanes = new Lanes<Held>(opts.settings.batchSize);
    this.now = opts.now ?? (() => performance.now());
    this.maxRunning = opts.settings.batchSize + opts.settings.newBatchThreshold;
    this.worker = { ...opts, complete: (msg) => void this.background.run(() => this.remove(msg)) };
  }

  get count(): number {
    return this.lanes.size + this.running.size + this.background.size;
  }

  add(received: readonly DequeuedMessageItem[]): void {
    for (const msg of received) {
      const held = heldMessage(msg, this.opts.settings, this.opts.laneOf, this.now);
      this.lanes.add(held.lane, held);
    }
    this.pump();
  }

  anySettled(): Promise<unknown> {
    return Promise.race([...this.running, this.background.settled()]);
  }

  /** Lets the waiting messages go (visible again at once, for the next host, not in 5 minutes) and finishes the rest. */
  async stop(): Promise<void> {
    const { queue } = this.opts;
    for (const { msg } of this.lanes.drain()) void this.background.run(() => queue.updateMessage(msg.messageId, msg.popReceipt, undefined, 0).catch(() => undefined));
    await Promise.allSettled(this.running);
    await this.background.idle();
  }

  private pump(): void {
    // Stopping: what waits is let go by stop(), not started.
    while (this.running.size < this.maxRunning && !this.opts.signal.aborted) {
      const next = this.lanes.next();
      if (!next) return;
      // Held so long its invisibility is ending: it comes back by itself, to be handled then.
      if (this.now() - next.item.heldSince > HELD_LIMIT_MS) {
        this.lanes.done(next.lane);
        continue;
      }
      this.start(next.lane, next.item);
    }
  }

  private start(lane: string, held: Held): void {
    const { log, functionName } = this.opts;
    const run: Promise<void> = deliver(this.worker, held.msg, held.payload)
      .then(() => undefined, (err: unknown) => log.error(`${functionName}: ${errorMessage(err)}`))
      .finally(() => {
        this.running.delete(run);
        this.lanes.done(lane);
        this.pump();
      });
    this.running.add(run);
  }

  private async remove(msg: DequeuedMessageItem): Promise<void> {
    await this.opts.queue.deleteMessage(msg.messageId, msg.popReceipt).catch((err: unknown) => {
      this.opts.log.debug?.(`${this.opts.functionName}: could not delete message ${msg.messageId} (it comes back and is handled again): ${errorMessage(err)}`);
    });
  }
}

/** A received message waiting for its turn, decoded once. */
interface Held {
  msg: DequeuedMessageItem;
  /** Undefined when it does not decode: deliver() decodes it again, meets the same error, and retries or poisons it. */
  payload: unknown;
  lane: string;
  heldSince: number;
}

function heldMessage(msg: DequeuedMessageItem, settings: QueueHostSettings, laneOf: QueueWorkerOptions['laneOf'], now: () => number): Held {
  let payload: unknown;
  try {
    payload = triggerPayload(msg.messageText, settings.messageEncoding);
  } catch {
    // Undecodable: in a lane of its own.
  }
  const lane = (payload === undefined ? undefined : laneOf?.(payload)) ?? `message/${msg.messageId}`;
  return { msg, payload, lane, heldSince: now() };
}

async function receive(opts: QueueWorkerOptions): Promise<DequeuedMessageItem[]> {
  const { queue, signal } = opts;
  try {
    return (await queue.receiveMessages({ numberOfMessages: RECEIVE_BATCH, visibilityTimeout: IN_FLIGHT_VISIBILITY_S })).receivedMessageItems;
  } catch (err) {
    if (!signal.aborted) opts.log.warn(`${opts.functionName}: polling ${queue.name} failed: ${errorMessage(err)}`);
    // The queue is gone (storage lost it): made again, and polling goes on.
    if (opts.recreate && isStorageGone(err)) await opts.recreate().catch((e: unknown) => opts.log.warn(`${opts.functionName}: could not create ${queue.name} again: ${errorMessage(e)}`));
    return [];
  }
}

/** Storage calls run beside the handlers, a few at a time: the deletes of handled messages. */
class Background {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly all = new Set<Promise<unknown>>();

  constructor(private readonly atOnce: number) {}

  /** Calls started or waiting. */
  get size(): number {
    return this.all.size;
  }

  run(call: () => Promise<unknown>): Promise<unknown> {
    const task = this.slot().then(call).finally(() => {
      this.all.delete(task);
      this.active--;
      this.waiting.shift()?.();
    });
    this.all.add(task);
    return task;
  }

  /** Resolves when any call settles. */
  settled(): Promise<unknown> {
    return this.all.size === 0 ? Promise.resolve() : Promise.race([...this.all].map((t) => t.catch(() => undefined)));
  }

  async idle(): Promise<void> {
    while (this.all.size > 0) await Promise.allSettled([...this.all]);
  }

  private slot(): Promise<void> {
    if (this.active < this.atOnce) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(() => (this.active++, resolve())));
  }
}
