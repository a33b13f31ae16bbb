/**
 * Polls one storage queue and hands each message to a function handler with the semantics
 * of the Functions queue trigger: messages leased while they run, deleted on success, made
 * visible again after `visibilityTimeout` on failure, and moved to `<queue>-poison` once they
 * have failed `maxDequeueCount` times. Polling backs off to `maxPollingInterval` when idle.
 */
import type { QueueClient, DequeuedMessageItem } from '@azure/storage-queue';
import { pause } from '../clock.js';
import { errorMessage, type Log } from '../log.js';
import { isStorageGone } from '../state/errors.js';
import type { QueueHostSettings } from './host-settings.js';
import { logHandlerFor, newInvocationContext, type AnyInvocationContext } from './invocation.js';

export type QueueHandler = (message: unknown, context: AnyInvocationContext) => Promise<unknown>;

/** How long a message stays hidden while its handler runs (the host renews; we use a long lease). */
const IN_FLIGHT_VISIBILITY_S = 300;
const MIN_POLL_MS = 100;

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
export async function deliver(opts: QueueWorkerOptions, msg: DequeuedMessageItem): Promise<'done' | 'retry' | 'poisoned'> {
  const { queue, poison, settings, log } = opts;
  try {
    const payload = triggerPayload(msg.messageText, settings.messageEncoding);
    const context = newInvocationContext(opts.functionName, {
      id: msg.messageId,
      dequeueCount: msg.dequeueCount,
      insertionTime: msg.insertedOn.toISOString(),
      expirationTime: msg.expiresOn.toISOString(),
      nextVisibleTime: msg.nextVisibleOn.toISOString(),
      popReceipt: msg.popReceipt,
    }, logHandlerFor(opts.functionName, log));
    await opts.handler(payload, context);
    await queue.deleteMessage(msg.messageId, msg.popReceipt);
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

/** Runs until `signal` aborts; resolves once the in-flight messages are finished. */
export async function runQueueWorker(opts: QueueWorkerOptions): Promise<void> {
  const { queue, settings, signal } = opts;
  const inFlight = new Set<Promise<unknown>>();
  let delay = 0;
  while (!signal.aborted) {
    if (inFlight.size > settings.newBatchThreshold) {
      await Promise.race(inFlight);
      continue;
    }
    let received: DequeuedMessageItem[] = [];
    try {
      const res = await queue.receiveMessages({ numberOfMessages: settings.batchSize, visibilityTimeout: IN_FLIGHT_VISIBILITY_S });
      received = res.receivedMessageItems;
    } catch (err) {
      if (!signal.aborted) opts.log.warn(`${opts.functionName}: polling ${queue.name} failed: ${errorMessage(err)}`);
      // The queue is gone (storage lost it): made again, and polling goes on.
      if (opts.recreate && isStorageGone(err)) await opts.recreate().catch((e: unknown) => opts.log.warn(`${opts.functionName}: could not create ${queue.name} again: ${errorMessage(e)}`));
    }
    for (const msg of received) {
      const p: Promise<unknown> = deliver(opts, msg)
        .catch((err: unknown) => opts.log.error(`${opts.functionName}: ${errorMessage(err)}`))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    delay = received.length > 0 ? 0 : Math.min(settings.maxPollingIntervalMs, Math.max(MIN_POLL_MS, delay * 2));
    if (delay > 0) await pause(delay, signal);
  }
  await Promise.allSettled(inFlight);
}
