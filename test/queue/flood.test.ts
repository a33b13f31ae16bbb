// Issue 22: a flood of messages for one object does not starve another. On Azurite, with the
// local host's queue worker: 2,000 pushes for `web` collapse into web's pending marker (the
// latest pushed value wins) and delay a push for `api` by at most 15 s; so do 2,000 raw messages
// for `web` from another tool, which fold into the marker instead of each reconciling.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAzurite, type AzuriteHandle } from '../../sim/azurite.js';
import { encodeMessage } from '../../src/queue/messages.js';
import { readSamples } from '../support/samples.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { eventually, startTargetWorld, type TargetWorld } from '../targets/support.js';
import { pushLoad } from '../../src/queue/push.js';

const API = { kind: 'Deployment' as const, namespace: 'default', name: 'api' };
const FLOOD = 2_000;

// An Azurite of this file's own: its single-threaded emulator works through thousands of
// messages here, which would hold up every other file's calls on the suite's.
let azurite: AzuriteHandle;
beforeAll(async () => {
  azurite = await startAzurite();
});
afterAll(async () => {
  await azurite.stop();
});

let world: TargetWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function twoTargets(): Promise<TargetWorld> {
  const target = (name: string) => ({ name, minScale: 1, maxScale: 10, scaleTargetRef: { kind: 'Deployment', name }, policy: 'knative', load: { source: 'push', targetPerReplica: 10 } });
  const w = await startTargetWorld(() => [target('web'), target('api')], { connection: azurite.connectionString });
  w.kube.add({ kind: 'Deployment', namespace: 'default', name: 'web' }, { replicas: 1 });
  w.kube.add(API, { replicas: 1 });
  return w;
}

/** Runs `send` for 0…n-1, `width` at a time. */
async function inWaves(n: number, width: number, send: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i += width) await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, j) => send(i + j)));
}

async function apiServedWithin(w: TargetWorld, ms: number): Promise<number> {
  const started = Date.now();
  await pushLoad({ pushes: w.rt.stores.pushes, queues: w.rt.queues }, 'api', 25, 'push');
  expect(await eventually(() => w.kube.inspect(API)?.specReplicas === 3, ms)).toBe(true);
  return Date.now() - started;
}

const queueEmpty = async (w: TargetWorld) => (await w.rt.storage.queue('reconcile').getProperties()).approximateMessagesCount === 0;

/** What a failed wait for web's latest value shows: its marker, its last samples, the queues. */
async function whereWebIs(w: TargetWorld): Promise<string> {
  const marker = await w.rt.queues.markers!.read({ kind: 'target', name: 'web' });
  const samples = (await readSamples(w.rt.table('samples'), 'web')).samples.slice(-3).map((s) => s.value);
  const queued = (await w.rt.storage.queue('reconcile').getProperties()).approximateMessagesCount;
  const poisoned = (await w.rt.storage.poisonQueue('reconcile').getProperties()).approximateMessagesCount;
  return JSON.stringify({ marker: marker?.pending, samples, queued, poisoned });
}

describe('a flood for one object', () => {
  it('of 2,000 pushes through the sender collapses into one marker: a push for another is served within 15 s, the latest value wins', async () => {
    world = await twoTargets();
    const w = world;
    await w.startHost();
    let sent = 0;
    await inWaves(FLOOD, 25, async (i) => {
      if ((await pushLoad({ pushes: w.rt.stores.pushes, queues: w.rt.queues }, 'web', 1 + (i % 40), 'push')).sent) sent++;
    });
    await pushLoad({ pushes: w.rt.stores.pushes, queues: w.rt.queues }, 'web', 45, 'push');
    expect(await apiServedWithin(w, 15_000)).toBeLessThan(15_000);
    // Each message served a collapsed batch: far fewer messages than pushes.
    expect(sent).toBeLessThan(FLOOD / 10);
    const latest = await eventually(async () => (await readSamples(w.rt.table('samples'), 'web')).samples.at(-1)?.value === 45, 60_000);
    expect(latest, await whereWebIs(w)).toBe(true);
    expect(await eventually(() => queueEmpty(w), 30_000)).toBe(true);
  }, 150_000);

  // Messages from another tool (`az storage message put`) do not pass through the sender, so each
  // one reaches the queue. The local host reads the backlog ahead and runs it one lane per object,
  // the lanes taking turns: a push for `api` behind 2,000 of them for `web` waits for the receives
  // ahead of it (32 messages each), not for their handling.
  it('of 2,000 raw messages from another tool: a push for another object is served within 15 s, and they fold into a few reconciles', async () => {
    world = await twoTargets();
    const w = world;
    // Both run already (a first sight adopts and looks again, which would add to the wait measured).
    for (const name of ['web', 'api']) await reconcileObject(w.rt, { kind: 'target', name }, { reason: 'adopt' }, { log: silentLog });
    const queue = w.rt.storage.queue('reconcile');
    await inWaves(FLOOD, 50, (i) => queue.sendMessage(encodeMessage({ kind: 'target', name: 'web', reason: 'raw flood', load: 1 + (i % 40) })));
    await w.startHost();
    expect(await apiServedWithin(w, 15_000)).toBeLessThan(15_000);
    expect(await eventually(() => queueEmpty(w), 60_000)).toBe(true);
    const reconciles = (await w.rt.decisions.recent(Date.now(), 500)).filter((d) => d.object === 'target/web').length;
    expect(reconciles).toBeLessThan(FLOOD / 20);
    // Raw messages handled at once have no order among them (nor has the queue in Azure): after
    // the flood, the next one's value is served.
    await queue.sendMessage(encodeMessage({ kind: 'target', name: 'web', reason: 'raw flood', load: 45 }));
    expect(await eventually(async () => (await readSamples(w.rt.table('samples'), 'web')).samples.at(-1)?.value === 45, 10_000)).toBe(true);
  }, 120_000);
});
