/**
 * Table requests per pass, exact: every request a runtime's table clients send, counted by a
 * policy on their pipelines (what goes on the wire, batches and retries included), for a cold
 * pool pass, the settling pass after it, a warm pool pass, and a target pass. A change that adds
 * a request per object shows here first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { runPass } from '../../src/reconcile/pass.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { TableName } from '../../src/state/storage.js';
import { armWorld, type ArmWorld } from '../support/arm.js';
import { startTargetWorld, webTarget, WEB, type TargetWorld } from '../targets/support.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { reconcileQueue } from '../../src/handlers/registrations.js';
import { newInvocationContext } from '../../src/host/invocation.js';

const TABLES: TableName[] = ['instances', 'machines', 'targets', 'probes', 'limiters', 'leases', 'decisions', 'samples', 'history'];

/** Requests by "METHOD table" (a batch as "BATCH table"), from now on. */
function countRequests(rt: Runtime) {
  const counts = new Map<string, number>();
  for (const name of TABLES) {
    const client = rt.table(name).client;
    client.pipeline.addPolicy({
      name: 'countTableRequests',
      sendRequest: (request, next) => {
        const kind = request.url.endsWith('$batch') ? 'BATCH' : request.method;
        const key = `${kind} ${name}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        return next(request);
      },
    });
  }
  return {
    take(): { total: number; reads: number } {
      const all = [...counts.entries()];
      counts.clear();
      return { total: all.reduce((n, [, v]) => n + v, 0), reads: all.filter(([k]) => k.startsWith('GET')).reduce((n, [, v]) => n + v, 0) };
    },
  };
}

describe('Table requests of a pool pass', () => {
  let world: ArmWorld;
  beforeAll(async () => {
    world = await armWorld();
  });
  afterAll(async () => {
    await world.sim.close();
  });

  it('cold (250 VMs adopted, the cache built), settling and warm passes make exactly these requests', async () => {
    world.sim.addScaleSet({ resourceGroup: 'rg-count', name: 'counted', capacity: 250 });
    const clock = new ManualClock(Date.now());
    // No jitter: the cache lists exactly one period after its first listing, so no pass below lists by chance.
    const rt = await world.runtime({ pools: [{ name: 'counted', scaleSet: { resourceGroup: 'rg-count', name: 'counted' }, maxCount: 250, reconcileRate: '10s,1', instanceCache: { jitter: '0s' } }] }, { clock });
    const counter = countRequests(rt);
    const pass = async () => {
      const outcome = await reconcileObject(rt, { kind: 'pool', name: 'counted' }, { reason: 'test' }, { log: silentLog });
      expect(outcome.status).toBe('done');
      return counter.take();
    };
    const cold = await pass();
    clock.advance(61_000);
    const settling = await pass();
    clock.advance(61_000);
    const rereading = await pass();
    clock.advance(61_000);
    const warm = await pass();
    // Cold: the cache's meta row and the inventory's generation row (both absent), then, with
    // something to write, the lease (insert, release); the reconcile rate's bucket (read, insert);
    // the cache (the claim; one batch of meta and pack: no partition read, the meta row was
    // absent); the inventory (its partition, one batch of the pack and the generation, which
    // carries the configuration stamp); the history (one batch; its first prune comes minutes
    // later); the decision log (the object's last decision of the day, one batch of the line and it).
    expect(cold).toEqual({ total: 13, reads: 5 });
    // Settling: reads everything once more (no warm record yet) under the lease, takes a
    // reconcile-rate token, records what it saw (the generation row) and its first steady
    // decision (remembered: no read of the log).
    expect(settling).toEqual({ total: 10, reads: 5 });
    // Warm, the scale set read 2 minutes old: read from ARM again (remembered by this process, not
    // written: it is as it was), and the two point reads find nothing changed. No lease.
    expect(rereading).toEqual({ total: 2, reads: 2 });
    // Warm, the read still recent: the two point reads.
    expect(warm).toEqual({ total: 2, reads: 2 });
    // A timer pass: the two point reads of a warm pool (the occurrence's claim rides on the lease,
    // which a pass that writes nothing does not take), and once a pass, not per object, its
    // housekeeping (the re-enqueue markers and the decision log's old days: a query each).
    clock.advance(30_000);
    const occurrence = clock.now() + 30_000;
    const timer = await runPass(rt, { log: silentLog, reason: 'timer', occurrence, budgetMs: Infinity });
    expect(timer.outcomes.map((o) => o.status === 'done' && !o.wrote)).toEqual([true]);
    expect(counter.take()).toEqual({ total: 2 + 2, reads: 2 + 2 });
    // The cache's period over (5 minutes after its first listing): the two point reads, the lease
    // (insert, release), the reconcile rate's bucket (read, replace), the cache partition, the
    // claim, and the listing found the VMs as they were: the meta row alone is written, the
    // cache's generation kept, so the pass is warm after all (no inventory read, nothing else).
    clock.advance(90_000);
    expect(await pass()).toEqual({ total: 9, reads: 4 });
  });
});

describe('Table requests of a target pass', () => {
  let world: TargetWorld | undefined;
  let server: http.Server | undefined;
  afterAll(async () => {
    await world?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  it('a steady target pass makes exactly these requests', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator, { scaleToZero: { enabled: false } })]);
    world.kube.add(WEB, { replicas: 2 });
    const counter = countRequests(world.rt);
    const pass = async () => {
      const outcome = await reconcileObject(world!.rt, { kind: 'target', name: 'web' }, { reason: 'test' }, { log: silentLog });
      expect(outcome.status).toBe('done');
      return counter.take();
    };
    await pass(); // adopts the target
    await pass(); // its first steady decision, written to the log
    // Steady: the target's row and its load samples, read; nothing to write, so no lease, and no
    // history or decision log request.
    expect(await pass()).toEqual({ total: 2, reads: 2 });
  });

  it('a steady poll of an http source, its delayed message delivered, makes exactly these requests', async () => {
    server = http.createServer((_req, res) => res.writeHead(200).end('20'));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/load`;
    const clock = new ManualClock(Date.UTC(2026, 11, 6, 10, 0, 0));
    const polled = { name: 'polled', minScale: 1, scaleToZero: { enabled: false }, scaleTargetRef: { kind: 'Deployment', name: 'polled' }, load: { source: 'http', url, targetPerReplica: 10, pollInterval: '15s' } };
    const w = await startTargetWorld(() => [polled], { clock });
    w.kube.add({ kind: 'Deployment', namespace: 'default', name: 'polled' }, { replicas: 2 });
    const ref = { kind: 'target' as const, name: 'polled' };
    const counter = countRequests(w.rt);
    // Its delayed message as the queue delivers it once due.
    const deliver = async () => {
      const marker = (await w.rt.queues.markers!.read(ref))!.pending;
      clock.set(Math.max(clock.now(), marker.sentAt!));
      counter.take();
      await reconcileQueue.handler(w.rt, { ...ref, reason: marker.reason, dueAt: marker.sentFor }, newInvocationContext('reconcileQueue', {}, () => undefined));
      return counter.take();
    };
    await reconcileObject(w.rt, ref, { reason: 'adopt' }, { log: silentLog });
    for (let i = 0; i < 3; i++) await deliver();
    // The marker read (its ETag serves the take: a conditional delete), the target's row and its
    // samples, the lease (insert, release), the sample written, the next poll's marker (read,
    // since another process may have written one since the take, and inserted), the minute's load
    // row in the history.
    expect(await deliver()).toEqual({ total: 10, reads: 4 });
    world = w;
  });
});

