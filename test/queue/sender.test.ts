import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock, type Clock } from '../../src/clock.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { createQueueSender, markDelivered } from '../../src/queue/sender.js';
import { freshStorage } from '../support/storage.js';
import type { Storage } from '../../src/state/storage.js';

let storage: Storage;
beforeAll(async () => {
  storage = await freshStorage();
});

const sender = (clock: Clock = systemClock) =>
  createQueueSender({
    reconcileQueue: storage.queue('reconcile'),
    probeQueue: storage.queue('probe'),
    pending: new EntityTable(storage.table('leases')),
    clock,
  });

/** Now, held still: requests made a few milliseconds apart cannot straddle a second boundary. */
const stillClock = () => new ManualClock(Date.now());

async function receiveAll(name: 'reconcile' | 'probe') {
  const res = await storage.queue(name).receiveMessages({ numberOfMessages: 32, visibilityTimeout: 30 });
  return res.receivedMessageItems.map((m) => JSON.parse(Buffer.from(m.messageText, 'base64').toString('utf8')) as Record<string, unknown>);
}

describe('delayed enqueue', () => {
  it('keeps a delayed message invisible until its delay has passed, then delivers it', async () => {
    const started = Date.now();
    await sender().reconcile({ kind: 'target', name: 'delayed', reason: 'requeue' }, 2_000);
    expect(await receiveAll('reconcile')).toEqual([]);
    let got: Record<string, unknown>[] = [];
    while (got.length === 0 && Date.now() - started < 8_000) {
      await new Promise((r) => setTimeout(r, 250));
      got = await receiveAll('reconcile');
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(got).toEqual([expect.objectContaining({ kind: 'target', name: 'delayed', reason: 'requeue' })]);
  });

  it('collapses repeated re-enqueues of one object for the same due second', async () => {
    const s = sender(stillClock());
    const results = await Promise.all([1, 2, 3].map(() => s.reconcile({ kind: 'pool', name: 'dup', reason: 'requeue' }, 60_000)));
    expect(results.filter((r) => r.sent)).toHaveLength(1);
  });

  it('sends a request again once the message for that due second was delivered', async () => {
    const clock = stillClock();
    const s = sender(clock);
    const first = await s.reconcile({ kind: 'pool', name: 'again', reason: 'requeue' }, 60_000);
    expect((await s.reconcile({ kind: 'pool', name: 'again', reason: 'requeue' }, 60_000)).sent).toBe(false);
    await markDelivered(new EntityTable(storage.table('leases')), { kind: 'pool', name: 'again', dueAt: first.dueAt });
    const third = await s.reconcile({ kind: 'pool', name: 'again', reason: 'requeue' }, first.dueAt - clock.now());
    expect(third).toEqual({ sent: true, dueAt: first.dueAt });
  });

  it('lands requests for one instant, computed at different times, on one message', async () => {
    const s = sender();
    const at = Math.ceil(Date.now() / 1000) * 1000 + 30_000;
    const first = await s.reconcileAt({ kind: 'target', name: 'instant', reason: 'window ends' }, at);
    await new Promise((r) => setTimeout(r, 20));
    const second = await s.reconcileAt({ kind: 'target', name: 'instant', reason: 'window ends' }, at);
    expect([first.sent, second.sent]).toEqual([true, false]);
    expect(second.dueAt).toBe(first.dueAt);
  });

  it('leaves no marker behind when the send fails, so the next request is sent', async () => {
    const failing = createQueueSender({
      reconcileQueue: { sendMessage: () => Promise.reject(new Error('queue down')) } as never,
      probeQueue: storage.queue('probe'),
      pending: new EntityTable(storage.table('leases')),
      clock: systemClock,
    });
    await expect(failing.reconcile({ kind: 'pool', name: 'down', reason: 'requeue' }, 60_000)).rejects.toThrow('queue down');
    expect((await sender().reconcile({ kind: 'pool', name: 'down', reason: 'requeue' }, 60_000)).sent).toBe(true);
  });

  it('never collapses a message that carries pushed load', async () => {
    const s = sender();
    const results = await Promise.all([5, 6].map((load) => s.reconcile({ kind: 'target', name: 'loaded', reason: 'push', load }, 60_000)));
    expect(results.every((r) => r.sent)).toBe(true);
  });

  it('writes base64 JSON, which the Functions queue trigger decodes', async () => {
    await sender().probe({ target: 'web', attempt: 0, deadline: 123 });
    const res = await storage.queue('probe').receiveMessages({ numberOfMessages: 1 });
    const text = res.receivedMessageItems[0]!.messageText;
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(Buffer.from(text, 'base64').toString('utf8'))).toEqual({ target: 'web', attempt: 0, deadline: 123 });
  });
});
