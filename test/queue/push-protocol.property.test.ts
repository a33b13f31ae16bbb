/**
 * Issue 30's property of the push protocol: however two runtimes' pushes, the deliveries of their
 * wake-up messages (lost, duplicated, early, late) and timer passes interleave, the latest push
 * (the push row's last write, storage order) is served by the next delivery for the target or the
 * next timer pass, whichever comes first. The real push row, samples row, pending markers and
 * delivery decisions run on an in-memory table with ETags whose every call the scheduler orders.
 *
 * On the landed code this failed: a runtime that had just taken a marker remembered it as absent,
 * so a delivery of the other runtime's message found "no marker" and was dropped, and no timer
 * pass read markers; the pushed value was never served.
 */
import fc from 'fast-check';
import type { TableClient } from '@azure/data-tables';
import type { QueueClient } from '@azure/storage-queue';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { TargetConfig } from '../../src/config/schema.js';
import { PUSH_ROW, PushStore } from '../../src/load/push-store.js';
import { SamplesChangedError } from '../../src/load/sample-store.js';
import { readSamples } from '../support/samples.js';
import { decodeMessage, reconcileMessageSchema, type ReconcileMessage } from '../../src/queue/messages.js';
import { settleDelivery, takeDelivery } from '../../src/queue/delivery.js';
import { PendingStore } from '../../src/queue/pending-store.js';
import { pushLoad } from '../../src/queue/push.js';
import { createQueueSender, type QueueSender } from '../../src/queue/sender.js';
import { collect } from '../../src/scaler/write/reconcile-target.js';
import { sampleSeriesRow } from '../../src/scaler/write/target-pass-deps.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { simulatedService } from '../../src/state/service-clock.js';
import { MemoryTableClient } from '../support/memory-table.js';

const TARGET = {
  name: 'web',
  load: { sources: [{ name: 'load', source: 'push', targetPerReplica: 1, metricType: 'total', activationThreshold: 0 }], combine: 'max' },
  scaleToZero: { stableWindow: 60_000 },
} as unknown as TargetConfig;
const REF = { kind: 'target', name: 'web' } as const;

/** A memory table whose every call waits for the scheduler's turn. */
function scheduledTable(s: fc.Scheduler, name: string): EntityTable {
  const client = new MemoryTableClient(name);
  const turn = <T>(call: () => Promise<T>) => s.schedule(Promise.resolve(), `${name} call`).then(call);
  const wrapped = {
    url: client.url,
    pipeline: { sendRequest: (http: unknown, request: Parameters<typeof client.pipeline.sendRequest>[1]) => turn(() => client.pipeline.sendRequest(http, request)) },
    listEntities: (options?: Parameters<typeof client.listEntities>[0]) =>
      (async function* () {
        await s.schedule(Promise.resolve(), `${name} list`);
        yield* client.listEntities(options);
      })(),
    createEntity: (e: Parameters<typeof client.createEntity>[0]) => turn(() => client.createEntity(e)),
    updateEntity: (e: Parameters<typeof client.updateEntity>[0], m: 'Replace', o?: { etag?: string }) => turn(() => client.updateEntity(e, m, o)),
    upsertEntity: (e: Parameters<typeof client.upsertEntity>[0], m?: 'Replace' | 'Merge') => turn(() => client.upsertEntity(e, m)),
    deleteEntity: (p: string, r: string, o?: { etag?: string }) => turn(() => client.deleteEntity(p, r, o)),
  };
  return new EntityTable(wrapped as unknown as TableClient);
}

interface Runtime {
  pushes: PushStore;
  queues: QueueSender;
}

function world(s: fc.Scheduler) {
  const clock = new ManualClock();
  const service = simulatedService(clock);
  const leases = scheduledTable(s, 'leases');
  const samples = scheduledTable(s, 'samples');
  const queue: ReconcileMessage[] = [];
  const fakeQueue = {
    name: 'reconcile',
    sendMessage: (text: string) => {
      const decoded = decodeMessage(reconcileMessageSchema, text);
      if (decoded.ok) queue.push(decoded.message);
      return Promise.resolve({});
    },
  } as unknown as QueueClient;
  const runtime = (): Runtime => ({
    pushes: new PushStore(samples, service),
    queues: createQueueSender({ reconcileQueue: fakeQueue, probeQueue: fakeQueue, pending: new PendingStore(leases, clock, service), clock }),
  });
  const runtimes = [runtime(), runtime()] as const;

  /** The target's reconcile, as far as its load goes: the very collect step the real one runs. A concurrent one's write wins. */
  const reconcile = async (): Promise<boolean> => {
    const deps = { lease: { check: () => Promise.resolve(), remainingMs: () => 60_000 }, signal: new AbortController().signal, sampleSeries: sampleSeriesRow(samples, 'web', true), sourceReader: undefined as never };
    try {
      await collect(deps, TARGET, { now: clock.now(), persist: true });
      return true;
    } catch (err) {
      if (err instanceof SamplesChangedError) return false;
      throw err;
    }
  };

  /** One delivery of a message by runtime `r`: the handler's marker steps around the reconcile; a failed one comes back. */
  const deliver = async (r: 0 | 1, msg: ReconcileMessage): Promise<void> => {
    const markers = runtimes[r].queues.markers!;
    const { delivery, taken } = await takeDelivery(markers, REF, msg, {});
    if (delivery.kind !== 'serve') return;
    const done = await reconcile();
    await settleDelivery(markers, REF, msg, taken, done ? { kind: 'done' } : { kind: 'retry' }, clock.now());
    if (!done) queue.push(msg);
  };

  const served = async () => {
    const [stored, push] = await Promise.all([readSamples(samples, 'web', true), samples.get('web', PUSH_ROW)]);
    return { latest: push ? Number(push.props.value) : undefined, newest: stored.samples.at(-1)?.value, served: push !== undefined && stored.pushTag === push.etag };
  };
  return { clock, queue, runtimes, reconcile, deliver, served };
}

type Step =
  | { kind: 'push'; value: number }
  | { kind: 'deliver'; pick: number }
  | { kind: 'lose'; pick: number }
  | { kind: 'duplicate'; pick: number }
  | { kind: 'timer' }
  | { kind: 'tick'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('push' as const), value: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('lose' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('timer' as const) }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 90_000 }) }),
);

async function run(w: ReturnType<typeof world>, r: 0 | 1, steps: Step[]): Promise<void> {
  for (const st of steps) {
    const at = (pick: number) => (w.queue.length ? pick % w.queue.length : -1);
    switch (st.kind) {
      case 'push':
        await pushLoad(w.runtimes[r], 'web', st.value, 'push');
        break;
      case 'deliver': {
        const i = at(st.pick);
        if (i >= 0) await w.deliver(r, w.queue.splice(i, 1)[0]!);
        break;
      }
      case 'lose':
        if (at(st.pick) >= 0) w.queue.splice(at(st.pick), 1);
        break;
      case 'duplicate':
        if (at(st.pick) >= 0) w.queue.push(w.queue[at(st.pick)]!);
        break;
      case 'timer':
        await w.reconcile();
        break;
      case 'tick':
        w.clock.advance(st.ms);
        break;
    }
  }
}

describe('the push protocol', () => {
  it('serves the latest push by the next delivery or timer pass, however two runtimes, lost and repeated messages interleave', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(step, { maxLength: 8 }), fc.array(step, { maxLength: 8 }), fc.nat(), fc.boolean(), async (s, a, b, pick, timerFirst) => {
        const w = world(s);
        await s.waitFor(Promise.all([run(w, 0, a), run(w, 1, b)]));
        const before = await s.waitFor(w.served());
        if (before.latest === undefined) return;
        // Whichever comes first: a delivery of any message still queued, or the timer pass.
        if (!timerFirst && w.queue.length > 0) await s.waitFor(w.deliver((pick % 2) as 0 | 1, w.queue.splice(pick % w.queue.length, 1)[0]!));
        else await s.waitFor(w.reconcile());
        const after = await s.waitFor(w.served());
        expect(after).toEqual({ latest: before.latest, newest: before.latest, served: true });
      }),
      { numRuns: 150 },
    );
  }, 20_000);
});
