/**
 * A rolling deploy from the version whose pushes rode in pending markers: the markers and
 * messages it wrote are served or removed by this one, never sent to the poison queue, and no
 * push is lost. (Before issue 30 a marker whose message was dropped kept its value for good: the
 * timer pass did not read markers.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { silentLog } from '../../src/log.js';
import { reconcileQueue } from '../../src/handlers/registrations.js';
import { newInvocationContext } from '../../src/host/invocation.js';
import { PENDING_PARTITION } from '../../src/queue/pending-store.js';
import { runPass } from '../../src/reconcile/pass.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readSamples } from '../support/samples.js';
import { startTargetWorld, webTarget, WEB, type TargetWorld } from '../targets/support.js';

let world: TargetWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const WEB_REF = { kind: 'target', name: 'web' } as const;

/** The previous version's marker for web: a due reconcile holding pushed `load`, its message named `sentFor` (absent: lost). */
async function previousMarker(w: TargetWorld, load: number, sentFor?: number): Promise<void> {
  const props = { dueInMs: 0, reason: 'forced (drover enqueue)', load, held: false, ...(sentFor === undefined ? {} : { sentInMs: 0, sentFor }) };
  await w.rt.table('leases').upsert(PENDING_PARTITION, 'target/web', props);
}

/** The handler as the Functions host calls it; it throws for a message to be retried (and poisoned after maxDequeueCount). */
async function deliver(w: TargetWorld, body: object, insertionTime = new Date()): Promise<void> {
  await reconcileQueue.handler(w.rt, body, newInvocationContext('reconcileQueue', { id: 'm1', insertionTime: insertionTime.toISOString() }, () => undefined));
}

/** The value the target's latest reconcile decided with (the window also holds the earlier ones). */
async function newestSample(w: TargetWorld): Promise<number | undefined> {
  return (await readSamples(w.rt.table('samples'), 'web')).samples.at(-1)?.value;
}

async function openWorld(): Promise<TargetWorld> {
  // 10 per replica: a load of 25 is 3 replicas, 55 is 6.
  world = await startTargetWorld((activator) => [webTarget(activator, { scaleToZero: { enabled: false, stableWindow: '1500ms' }, maxScaleDownRate: 1000 })]);
  world.kube.add(WEB, { replicas: 1 });
  // Adopted first: a target's first reconcile writes nothing to it.
  await reconcileObject(world.rt, WEB_REF, { reason: 'adopt' }, { log: silentLog });
  return world;
}

describe('markers and messages of the previous version', () => {
  it("its message names its marker: the delivery serves the marker's value and leaves no value behind", async () => {
    const w = await openWorld();
    await previousMarker(w, 25, 4242);
    await deliver(w, { ...WEB_REF, reason: 'forced (drover enqueue)', dueAt: 4242 });
    expect(w.kube.inspect(WEB)?.specReplicas).toBe(3);
    expect((await w.rt.queues.markers!.read(WEB_REF))?.pending.load).toBeUndefined();
  });

  it('its marker whose message was lost (or dropped): the next timer pass serves the value and takes it off the marker', async () => {
    const w = await openWorld();
    await previousMarker(w, 25);
    await runPass(w.rt, { log: silentLog, budgetMs: 30_000 });
    expect(w.kube.inspect(WEB)?.specReplicas).toBe(3);
    expect((await w.rt.queues.markers!.read(WEB_REF))?.pending.load).toBeUndefined();
    // Served once: a later pass does not bring it back over a newer push.
    await w.rt.stores.pushes.record('web', 55);
    await runPass(w.rt, { log: silentLog, budgetMs: 30_000 });
    expect(await newestSample(w)).toBe(55);
  });

  it('its marker older than a push of this version: the newer push wins', async () => {
    const w = await openWorld();
    await previousMarker(w, 25, 4242);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await w.rt.stores.pushes.record('web', 55);
    await deliver(w, { ...WEB_REF, reason: 'forced (drover enqueue)', dueAt: 4242 });
    expect(w.kube.inspect(WEB)?.specReplicas).toBe(6);
  });

  it("an older build's message carrying its value is served; a late copy of it never undoes a newer push", async () => {
    const w = await openWorld();
    const sent = new Date();
    await deliver(w, { ...WEB_REF, reason: 'push', load: 25 }, sent);
    expect(w.kube.inspect(WEB)?.specReplicas).toBe(3);
    await w.rt.stores.pushes.record('web', 55);
    await deliver(w, { ...WEB_REF, reason: 'push', load: 25 }, sent);
    expect(await newestSample(w)).toBe(55);
    expect((await w.rt.stores.pushes.read('web'))?.value).toBe(55);
  });

  it('a message for a target whose value has nowhere to go is served without it, not retried', async () => {
    const w = await openWorld();
    await expect(deliver(w, { kind: 'pool', name: 'nope', reason: 'push', load: 3 })).resolves.toBeUndefined();
    await expect(deliver(w, { ...WEB_REF, reason: 'requeue', dueAt: 1_000 })).resolves.toBeUndefined();
  });
});
