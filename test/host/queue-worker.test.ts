import { beforeAll, describe, expect, it } from 'vitest';
import { deliver, runQueueWorker, triggerPayload, type QueueWorkerOptions } from '../../src/host/queue-worker.js';
import { parseTimeSpan, queueSettingsFrom, HOST_DEFAULTS } from '../../src/host/host-settings.js';
import { decodeMessage, encodeMessage, reconcileMessageSchema } from '../../src/queue/messages.js';
import { reconcileQueue } from '../../src/handlers/registrations.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { azuriteStorage, writeConfig } from '../support/config.js';
import { silentLog } from '../../src/log.js';
import { freshStorage } from '../support/storage.js';
import type { Storage } from '../../src/state/storage.js';
import hostJson from '../../host.json' with { type: 'json' };

let storage: Storage;
beforeAll(async () => {
  storage = await freshStorage();
});

describe('host.json', () => {
  it('asks for prompt polling, bodies as sent (raw or base64 JSON) and a bounded dequeue count', () => {
    const s = queueSettingsFrom(hostJson);
    expect(s.maxPollingIntervalMs).toBeLessThanOrEqual(5_000);
    expect(s.messageEncoding).toBe('none');
    expect(s.maxDequeueCount).toBe(5);
    expect(hostJson.extensionBundle.version).toBe('[4.*, 5.0.0)');
  });

  it.each([
    ['00:00:02', 2_000],
    ['00:01:00', 60_000],
    ['1.00:00:00', 86_400_000],
    ['00:00:00.5', 500],
  ])('reads the TimeSpan %s as %d ms', (text, ms) => {
    expect(parseTimeSpan(text)).toBe(ms);
  });

  it('falls back to the host defaults for what host.json leaves out', () => {
    expect(queueSettingsFrom({})).toEqual(HOST_DEFAULTS);
  });
});

describe('queue worker', () => {
  const settings = { ...queueSettingsFrom(hostJson), visibilityTimeoutMs: 0, maxDequeueCount: 3 };

  /**
   * A worker on the probe queue, one message of a lane at a time, whose handler notes each
   * message's reason and waits until `release()`; `now`: the clock it times held messages on.
   */
  const blockingWorker = (now?: () => number) => {
    const queue = storage.queue('probe');
    const started: string[] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const ac = new AbortController();
    const worker = runQueueWorker({
      functionName: 'reconcileQueue',
      queue,
      poison: storage.poisonQueue('probe'),
      handler: async (message) => {
        const decoded = decodeMessage(reconcileMessageSchema, message);
        started.push(decoded.ok ? decoded.message.reason : 'malformed');
        await blocked;
      },
      laneOf: reconcileQueue.lane,
      settings: { ...settings, batchSize: 1, newBatchThreshold: 1 },
      log: silentLog,
      signal: ac.signal,
      ...(now ? { now } : {}),
    });
    return { queue, started, release, ac, worker };
  };

  it('moves a message that keeps failing to <queue>-poison after maxDequeueCount tries', async () => {
    const queue = storage.queue('reconcile');
    const poison = storage.poisonQueue('reconcile');
    let calls = 0;
    const opts: QueueWorkerOptions = {
      functionName: 'reconcileQueue',
      queue,
      poison,
      handler: () => {
        calls++;
        return Promise.reject(new Error('ARM is down'));
      },
      settings,
      log: silentLog,
      signal: new AbortController().signal,
    };
    const body = encodeMessage({ kind: 'pool', name: 'workers', reason: 'forced' });
    await queue.sendMessage(body);
    const outcomes: string[] = [];
    for (let i = 0; i < 10 && !outcomes.includes('poisoned'); i++) {
      const got = await queue.receiveMessages({ numberOfMessages: 1, visibilityTimeout: 30 });
      for (const m of got.receivedMessageItems) outcomes.push(await deliver(opts, m));
    }
    expect(outcomes).toEqual(['retry', 'retry', 'poisoned']);
    expect(calls).toBe(3);
    const poisoned = await poison.receiveMessages({ numberOfMessages: 5 });
    expect(poisoned.receivedMessageItems.map((m) => m.messageText)).toEqual([body]);
    expect((await queue.peekMessages()).peekedMessageItems).toHaveLength(0);
  });

  it('drops a malformed message at once, logging what was wrong', async () => {
    const queue = storage.queue('probe');
    const errors: string[] = [];
    const log = { ...silentLog, error: (...a: unknown[]) => errors.push(a.join(' ')) };
    const rt = await createRuntime({ configFile: writeConfig({ storage: azuriteStorage(storage.prefix) }), env: {} });
    const ac = new AbortController();
    const worker = runQueueWorker({
      functionName: 'reconcileQueue',
      queue,
      poison: storage.poisonQueue('probe'),
      // What the handler logs through its context reaches the worker's log.
      handler: (message, context) => reconcileQueue.handler(rt, message, context),
      settings,
      log,
      signal: ac.signal,
    });
    await queue.sendMessage(encodeMessage({ kind: 'cluster', name: 'x' }));
    for (let i = 0; i < 50 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    ac.abort();
    await worker;
    expect(errors).toEqual([expect.stringMatching(/^reconcileQueue: dropping malformed message [-0-9a-f]+ from .*reconcile.*: kind: expected "target" or "pool"/)]);
    expect((await queue.peekMessages()).peekedMessageItems).toHaveLength(0);
    expect((await storage.poisonQueue('probe').peekMessages()).peekedMessageItems).toHaveLength(0);
  });

  it('runs one lane at a time per batchSize, and at a stop makes the messages still waiting visible again', async () => {
    const { queue, started, release, ac, worker } = blockingWorker();
    for (const reason of ['w1', 'w2', 'w3']) await queue.sendMessage(encodeMessage({ kind: 'pool', name: 'workers', reason }));
    await queue.sendMessage(encodeMessage({ kind: 'target', name: 'api', reason: 'a1' }));
    for (let i = 0; i < 100 && started.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    // One of the pool's lane and the target's, though two more of the pool's came first.
    expect(started).toEqual(['w1', 'a1']);
    ac.abort();
    release();
    await worker;
    const left = (await queue.receiveMessages({ numberOfMessages: 10 })).receivedMessageItems.map((m) => (JSON.parse(Buffer.from(m.messageText, 'base64').toString()) as { reason: string }).reason);
    expect(left.sort()).toEqual(['w2', 'w3']);
  });

  it('a body that does not decode runs in a lane of its own, is tried maxDequeueCount times and poisoned; the rest are handled', async () => {
    const queue = storage.queue('reconcile');
    const poison = storage.poisonQueue('reconcile');
    const handled: unknown[] = [];
    const ac = new AbortController();
    const worker = runQueueWorker({
      functionName: 'reconcileQueue',
      queue,
      poison,
      handler: (message) => {
        handled.push(message);
        return Promise.resolve();
      },
      laneOf: reconcileQueue.lane,
      // Bodies as the Functions host reads them by default: base64.
      settings: { ...settings, messageEncoding: 'base64' },
      log: silentLog,
      signal: ac.signal,
    });
    await queue.sendMessage('{not base64}');
    await queue.sendMessage(encodeMessage({ kind: 'pool', name: 'workers', reason: 'after' }));
    const poisoned = async () => (await poison.peekMessages()).peekedMessageItems.map((m) => m.messageText);
    for (let i = 0; i < 300 && (await poisoned()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    ac.abort();
    await worker;
    expect(await poisoned()).toEqual(['{not base64}']);
    expect(handled).toEqual([{ kind: 'pool', name: 'workers', reason: 'after' }]);
    expect((await queue.peekMessages()).peekedMessageItems).toHaveLength(0);
  });

  it('does not start a message held until its invisibility is ending: it comes back by itself, for the next receive', async () => {
    const probeQueue = storage.queue('probe');
    const count = async () => (await probeQueue.getProperties()).approximateMessagesCount ?? 0;
    const before = await count();
    let now = 0;
    const { queue, started, release, ac, worker } = blockingWorker(() => now);
    await queue.sendMessage(encodeMessage({ kind: 'pool', name: 'slow', reason: 's1' }));
    await queue.sendMessage(encodeMessage({ kind: 'pool', name: 'slow', reason: 's2' }));
    for (let i = 0; i < 100 && started.length < 1; i++) await new Promise((r) => setTimeout(r, 50));
    // s2 waits behind s1 in its lane past the 300 s it was received for, less a margin.
    now += 271_000;
    release();
    await new Promise((r) => setTimeout(r, 300));
    ac.abort();
    await worker;
    expect(started).toEqual(['s1']);
    // Not deleted and not made visible at the stop: still hidden until its invisibility ends.
    expect((await queue.peekMessages()).peekedMessageItems).toHaveLength(0);
    expect(await count()).toBe(before + 1);
  });

  it('decodes bodies as the trigger does', () => {
    expect(triggerPayload(encodeMessage({ a: 1 }), 'base64')).toEqual({ a: 1 });
    expect(triggerPayload('{"a":1}', 'none')).toEqual({ a: 1 });
    expect(triggerPayload(Buffer.from('plain').toString('base64'), 'base64')).toBe('plain');
    expect(() => triggerPayload('{not base64}', 'base64')).toThrow(/not valid base64/);
  });
});
