import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock, type Clock } from '../../src/clock.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { createQueueSender } from '../../src/queue/sender.js';
import { LOST_AFTER_MS } from '../../src/queue/pending-plan.js';
import { PendingStore } from '../../src/queue/pending-store.js';
import { serviceResponses, simulatedService } from '../../src/state/service-clock.js';
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
    pending: markersOn(clock),
    clock,
  });

function markersOn(clock: Clock) {
  return new PendingStore(new EntityTable(storage.table('leases')), clock, clock === systemClock ? serviceResponses : simulatedService(clock));
}

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

  it('collapses requests for one object into one message', async () => {
    const s = sender(stillClock());
    const results = await Promise.all([1, 2, 3].map(() => s.reconcile({ kind: 'pool', name: 'dup', reason: 'requeue' }, 60_000)));
    expect(results.filter((r) => r.sent)).toHaveLength(1);
    expect((await s.reconcile({ kind: 'target', name: 'pushed', reason: 'push' })).sent).toBe(true);
    expect((await s.reconcile({ kind: 'target', name: 'pushed', reason: 'push' })).sent).toBe(false);
    expect((await s.markers!.read({ kind: 'target', name: 'pushed' }))?.pending).toMatchObject({ reason: 'push' });
  });

  it('sends again for a sooner request, not for a later one: the earliest due time wins', async () => {
    const clock = stillClock();
    const s = sender(clock);
    const ref = { kind: 'pool' as const, name: 'sooner' };
    expect((await s.reconcile({ ...ref, reason: 'in a minute' }, 60_000)).sent).toBe(true);
    expect((await s.reconcile({ ...ref, reason: 'now' }, 0)).sent).toBe(true);
    expect((await s.reconcile({ ...ref, reason: 'later' }, 30_000)).sent).toBe(false);
    expect((await s.markers!.read(ref))?.pending).toMatchObject({ dueAt: Math.ceil(clock.now() / 1000) * 1000, reason: 'now' });
  });

  it('sends again once the marker\'s message is overdue by a minute: it was lost', async () => {
    const clock = stillClock();
    const s = createQueueSender({ reconcileQueue: storage.queue('reconcile'), probeQueue: storage.queue('probe'), pending: markersOn(clock), clock });
    const ref = { kind: 'pool' as const, name: 'lost' };
    expect((await s.reconcile({ ...ref, reason: 'requeue' }, 1_000)).sent).toBe(true);
    clock.advance(30_000);
    expect((await s.reconcile({ ...ref, reason: 'requeue' })).sent).toBe(false);
    clock.advance(LOST_AFTER_MS);
    expect((await s.reconcile({ ...ref, reason: 'requeue' })).sent).toBe(true);
  });

  it('leaves the marker without a message when the send fails, so the next request is sent', async () => {
    const failing = createQueueSender({
      reconcileQueue: { sendMessage: () => Promise.reject(new Error('queue down')) } as never,
      probeQueue: storage.queue('probe'),
      pending: markersOn(systemClock),
      clock: systemClock,
    });
    await expect(failing.reconcile({ kind: 'pool', name: 'down', reason: 'requeue' }, 60_000)).rejects.toThrow('queue down');
    expect((await sender().reconcile({ kind: 'pool', name: 'down', reason: 'requeue' }, 60_000)).sent).toBe(true);
  });

  it('writes base64 JSON, which the Functions queue trigger decodes', async () => {
    await sender().probe({ target: 'web', attempt: 0, deadline: 123 });
    const res = await storage.queue('probe').receiveMessages({ numberOfMessages: 1 });
    const text = res.receivedMessageItems[0]!.messageText;
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(Buffer.from(text, 'base64').toString('utf8'))).toEqual({ target: 'web', attempt: 0, deadline: 123 });
  });
});
