// Issue 5 end to end: the real Kubernetes client against the simulator, real queues on
// Azurite driving the delayed re-enqueues and the async probe, and no timer tick.
import { afterEach, describe, expect, it } from 'vitest';
import { readProbe } from '../../src/probe/async-probe.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { eventually, startTargetWorld, WEB, webTarget, type TargetWorld } from './support.js';
import { pushLoad } from '../../src/queue/push.js';

let world: TargetWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('a Kubernetes target with no load', () => {
  it('goes 3 → 1 → 0 after the stable window and the grace period, while the activator answers', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator)]);
    const { kube, rt, activator } = world;
    kube.add(WEB, { replicas: 3 });
    await world.startHost();
    const timeline = world.timeline();
    const start = Date.now();
    await pushLoad({ pushes: rt.stores.pushes, queues: rt.queues }, 'web', 0, 'forced');

    expect(await eventually(() => kube.inspect(WEB)?.specReplicas === 0, 25_000)).toBe(true);
    timeline.stop();
    expect(timeline.values.map((v) => v.replicas)).toEqual([3, 1, 0]);
    expect(timeline.values[2]!.at - start).toBeGreaterThanOrEqual(1_500 + 1_000);
    expect(activator.probes).toBeGreaterThanOrEqual(1);
    expect(await eventually(async () => (await readTargetRecord(rt.table('targets'), 'web'))?.actualScale === 0, 3_000)).toBe(true);
    expect(await readTargetRecord(rt.table('targets'), 'web')).toMatchObject({ activeStatus: 'False', activeReason: 'NoTraffic', desiredScale: 0, requestedScale: 0 });
  }, 40_000); // Real queue delays: a loaded machine stretches them.

  it('stays at 1 while the activator is absent, probing asynchronously, and reaches 0 once it appears', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator)]);
    const { kube, rt, activator } = world;
    activator.setPresent(false);
    kube.add(WEB, { replicas: 3 });
    await world.startHost();
    await pushLoad({ pushes: rt.stores.pushes, queues: rt.queues }, 'web', 0, 'forced');

    expect(await eventually(async () => ((await readProbe(rt.stores.probe, 'web'))?.attempts ?? 0) >= 3, 10_000)).toBe(true);
    expect(kube.inspect(WEB)?.specReplicas).toBe(1);
    const probe = await readProbe(rt.stores.probe, 'web');
    expect(probe).toMatchObject({ inFlight: true, lastResult: expect.stringMatching(/no activator endpoints/) });
    expect((await readTargetRecord(rt.table('targets'), 'web'))?.activatorSeenSince).toBeUndefined();

    activator.setPresent(true);
    const appeared = Date.now();
    expect(await eventually(() => kube.inspect(WEB)?.specReplicas === 0, 6_000)).toBe(true);
    // One probe period, then the reconcile a second later: no timer tick was needed.
    expect(Date.now() - appeared).toBeLessThan(4_000);
    expect(await readProbe(rt.stores.probe, 'web')).toMatchObject({ inFlight: false, lastResult: 'activator' });
  });
});
