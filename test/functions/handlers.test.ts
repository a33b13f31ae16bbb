import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import azureFunctions from '@azure/functions';
import { probeQueue, reconcileQueue, reconcileTimer, status } from '../../src/handlers/registrations.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { startWorld, type World } from '../support/world.js';

const logs: string[] = [];
const context = (name: string) =>
  new azureFunctions.InvocationContext({ functionName: name, logHandler: (level, ...args) => logs.push(`${level}: ${args.join(' ')}`) });

let world: World;
let rt: Runtime;
beforeAll(async () => {
  world = await startWorld();
  world.arm.sim.addScaleSet({ resourceGroup: 'rg', name: 'vmss', capacity: 1 });
  world.kube.add({ kind: 'Deployment', namespace: 'default', name: 'web' }, { replicas: 1 });
  const configFile = world.configFile({
    pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' }, maxCount: 1, reconcileRate: '0s,1' }],
    targets: [{ name: 'web', minScale: 1, scaleTargetRef: { kind: 'Deployment', name: 'web' } }],
  });
  rt = await createRuntime({ configFile, env: {} });
  await rt.storage.ensure();
});
afterAll(async () => {
  await world.close();
});

describe('the four functions, called through the registration table as both hosts call them', () => {
  it('reconcileTimer visits every pool and target and records that it did', async () => {
    await reconcileTimer.handler(rt, { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } }, context('reconcileTimer'));
    const decisions = await rt.decisions.recent(rt.clock.now());
    expect(decisions.map((d) => d.object).sort()).toEqual(['pool/workers', 'target/web']);
  });

  it('reconcileQueue reconciles the object its message names', async () => {
    logs.length = 0;
    await reconcileQueue.handler(rt, { kind: 'target', name: 'web', reason: 'forced', load: 3 }, context('reconcileQueue'));
    expect(logs.join('\n')).toMatch(/target\/web: .*forced/);
  });

  it('reconcileQueue re-enqueues a reconcile whose object is busy instead of losing it', async () => {
    const got = await rt.leases.acquire('pool/workers', 'someone-else', 60_000);
    expect(got.acquired).toBe(true);
    await reconcileQueue.handler(rt, { kind: 'pool', name: 'workers', reason: 'forced' }, context('reconcileQueue'));
    if (got.acquired) await rt.leases.release(got.lease);
    // The retry is delayed (invisible to peek); the object's pending marker waits for the lease, with a message.
    expect((await rt.queues.markers!.read({ kind: 'pool', name: 'workers' }))?.pending).toMatchObject({ held: true, sentFor: expect.any(Number) });
  });

  it('gives each invocation its own lease holder, so two in one process never reconcile an object at once', async () => {
    const { reconcileObject } = await import('../../src/reconcile/object.js');
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const outcomes = await Promise.all([1, 2].map(() => reconcileObject(rt, { kind: 'pool', name: 'workers' }, { reason: 'race' }, { log })));
    expect(outcomes.map((o) => o.status).sort(), JSON.stringify(outcomes)).toEqual(['busy', 'done']);
  });

  it('reconcileQueue drops a message for an object that is not configured', async () => {
    logs.length = 0;
    await reconcileQueue.handler(rt, { kind: 'pool', name: 'ghost', reason: 'forced' }, context('reconcileQueue'));
    expect(logs.join('\n')).toMatch(/dropping message .* for pool\/ghost: not in this host's configuration \(seq \d+\), and no newer configuration runs/);
  });

  it('probeQueue drops a malformed message with the reason', async () => {
    logs.length = 0;
    await probeQueue.handler(rt, { target: 'web' }, context('probeQueue'));
    expect(logs.join('\n')).toMatch(/error: dropping malformed message .* from .*probe.*: attempt: expected a number/);
  });

  it('status answers with the JSON view of DESIGN.md', async () => {
    const res = await status.handler(rt, new azureFunctions.HttpRequest({ url: 'http://localhost/api/status', method: 'GET' }), context('status'));
    expect(res.status).toBe(200);
    const body = res.jsonBody as Record<string, unknown[]>;
    expect(Object.keys(body).sort()).toEqual(['decisions', 'pools', 'probes', 'targets']);
    expect(body.pools).toEqual([expect.objectContaining({ name: 'workers', scaleSet: expect.objectContaining({ resourceGroup: 'rg', name: 'vmss' }) })]);
    expect(body.decisions!.length).toBeGreaterThan(0);
  });

  it('status answers a browser with the page, and JSON again with ?format=json', async () => {
    const request = (query: string) =>
      new azureFunctions.HttpRequest({ url: `http://localhost/api/status${query}`, method: 'GET', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    const page = await status.handler(rt, request('?code=s3cret'), context('status'));
    expect(page.status).toBe(200);
    expect(new Headers(page.headers as Record<string, string>).get('content-type')).toBe('text/html; charset=utf-8');
    const html = String(page.body);
    expect(html).toMatch(/<section class="object pool" id="pool-workers"/);
    expect(html).toMatch(/<section class="object target" id="target-web"/);
    expect(html).toContain('"refresh":{"query":"code=s3cret","seconds":15}');
    expect(html).toMatch(/<script nonce="[^"]+">\/\*! https:\/\/github.com\/leeoniya\/uPlot/);
    const json = await status.handler(rt, request('?code=s3cret&format=json'), context('status'));
    expect(Object.keys(json.jsonBody as object).sort()).toEqual(['decisions', 'pools', 'probes', 'targets']);
  });

  it('the timer pass leaves a history row per object, which the page draws', async () => {
    const now = rt.clock.now();
    const [pool, web] = await Promise.all([rt.history.read('pool/workers', now), rt.history.read('target/web', now)]);
    expect(pool.at(-1)?.fields).toEqual(expect.objectContaining({ capacity: 1, inventory: 1 }));
    expect(web.filter((r) => r.fields).at(-1)?.fields).toEqual(expect.objectContaining({ desired: 3, scale: 3 }));
    expect(web.find((r) => r.load)?.load?.points.map((p) => p.value)).toEqual([3]);
  });
});
