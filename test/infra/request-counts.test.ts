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
    const rt = await world.runtime({ pools: [{ name: 'counted', scaleSet: { resourceGroup: 'rg-count', name: 'counted' }, maxCount: 250, reconcileRate: '10s,1' }] }, { clock });
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
    // Cold: the lease (insert, release), the cache (its meta row, absent: no partition read; the
    // claim; one batch of meta and pack), the inventory (generation row, partition, one batch of
    // the pack and the generation), the reconcile rate's bucket (read, insert), the history
    // point (read, batch), the decision log (its last row, the line, the last row), and the
    // pool's configuration stamp (one merge on the generation row, once per pool and configuration).
    expect(cold).toEqual({ total: 16, reads: 6 });
    // Settling: reads everything once more (no warm record yet), changes nothing, records what
    // it saw (the generation row), takes a reconcile-rate token and logs its first steady decision.
    expect(settling).toEqual({ total: 11, reads: 5 });
    // Warm, the scale set read stored on the meta row 2 minutes old: read from ARM again and
    // stored for the next passes. Lease insert and release, the cache's meta row and the
    // inventory's generation row, that write.
    expect(rereading).toEqual({ total: 5, reads: 2 });
    // Warm, the stored read serving: the lease and the two point reads.
    expect(warm).toEqual({ total: 4, reads: 2 });
    // A timer pass claims its occurrence with the lease: the lease row read (no row of its own
    // for the claim), one conditional write taking both, the release keeping the claim (a
    // replace), and the two point reads; and once a pass, not per object, its housekeeping
    // (the re-enqueue markers and the decision log's old days: a query each). A second host's
    // pass for the same occurrence reads the row only.
    clock.advance(30_000);
    const occurrence = clock.now() + 30_000;
    const timer = await runPass(rt, { log: silentLog, reason: 'timer', occurrence, budgetMs: Infinity });
    expect(timer.outcomes.map((o) => o.status)).toEqual(['done']);
    expect(counter.take()).toEqual({ total: 5 + 2, reads: 3 + 2 });
    const again = await runPass(rt, { log: silentLog, reason: 'timer', occurrence, budgetMs: Infinity });
    expect(again.outcomes.map((o) => o.status)).toEqual(['claimed']);
    expect(counter.take()).toEqual({ total: 1 + 2, reads: 1 + 2 });
  });
});

describe('Table requests of a target pass', () => {
  let world: TargetWorld | undefined;
  afterAll(async () => {
    await world?.close();
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
    // Steady: the lease (insert, release; more than half of it left, so no renewal), two reads
    // of the targets table and one of the load samples; no history or decision log read,
    // nothing else written.
    expect(await pass()).toEqual({ total: 5, reads: 3 });
  });
});
