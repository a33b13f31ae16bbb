// Issue 31, a case seen once: with a slow source and a faster timer, two reconciles of one target
// read its samples alike (the lease is taken at the first write) and the second to write finds
// them "written by another reconcile". On Azurite and the Kubernetes simulator, with the real
// reconcile queue handler: such a lost race is no failure, so however often it repeats, a queued
// message is never retried to the poison queue; the request is carried on and served once the
// race is not lost.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { onReconcileMessage } from '../../src/handlers/reconcile-queue.js';
import { logHandlerFor, newInvocationContext } from '../../src/host/invocation.js';
import { readSamples, writeSamples } from '../support/samples.js';
import { silentLog } from '../../src/log.js';
import { encodeMessage } from '../../src/queue/messages.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { startTargetWorld, WEB, webTarget, worldPerTest } from '../targets/support.js';

const opened = worldPerTest();

/** One delivery to the reconcile queue's handler, as the queue trigger makes its `dequeueCount`th. */
function deliver(rt: Runtime, dequeueCount: number) {
  const context = newInvocationContext('reconcileQueue', { id: 'm-1', dequeueCount }, logHandlerFor('reconcileQueue', silentLog));
  return onReconcileMessage(rt, encodeMessage({ kind: 'target', name: 'web', reason: 'forced' }), context);
}

const queued = async (rt: Runtime) => (await rt.storage.queue('reconcile').getProperties()).approximateMessagesCount ?? 0;

describe('a reconcile that loses the race for the samples', () => {
  it('is tried again, never failed: more races in a row than maxDequeueCount poison nothing, and the request is served after', async () => {
    // While `racing`, each read of the source lets another reconcile write the samples first.
    let racing = false;
    opened.server = http.createServer((_req, res) => {
      const answer = () => res.writeHead(200).end('40');
      if (!racing) return answer();
      const table = opened.world!.rt.table('samples');
      void readSamples(table, 'web')
        .then((s) => writeSamples(table, 'web', [...s.samples, { at: Date.now(), value: 40 }], Date.now(), s.etag))
        .then(answer, (err: unknown) => res.writeHead(500).end(String(err)));
    });
    await new Promise<void>((resolve) => opened.server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(opened.server.address() as AddressInfo).port}/load`;
    opened.world = await startTargetWorld((activator) => [webTarget(activator, { maxScale: 10, load: { source: 'http', url, timeout: '2s', targetPerReplica: 10 } })]);
    const { kube, rt } = opened.world;
    kube.add(WEB, { replicas: 1 });
    // The samples row exists (a race needs a row to lose over).
    await reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'timer' }, { log: silentLog });
    kube.resetCounters();

    racing = true;
    // maxDequeueCount is 5 (startTargetWorld's host.json): a handler that threw on each try would have poisoned the message.
    for (let attempt = 1; attempt <= 6; attempt++) {
      await expect(reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'timer' }, { log: silentLog })).resolves.toMatchObject({ status: 'busy', heldBy: expect.stringMatching(/wrote the samples first/) });
      // Served (and lost) the first time, folded into the request already waiting after: never thrown for a retry.
      expect((await deliver(rt, attempt))?.status).not.toBe('failed');
    }
    // The lost passes wrote nothing, recorded no failure, and the request waits for its next try (its marker held, its message queued).
    expect(kube.count('patchScale')).toBe(0);
    const failed = (await rt.decisions.recent(Date.now() + 1000, 50)).filter((d) => d.object === 'target/web' && d.error !== undefined);
    expect(failed).toEqual([]);
    expect((await rt.queues.markers!.read({ kind: 'target', name: 'web' }))?.pending).toMatchObject({ held: true });
    expect(await queued(rt)).toBeGreaterThanOrEqual(1);

    racing = false;
    await expect(reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'requeue' }, { log: silentLog })).resolves.toMatchObject({ status: 'done' });
    expect(kube.inspect(WEB)?.specReplicas).toBe(4);
  });
});
