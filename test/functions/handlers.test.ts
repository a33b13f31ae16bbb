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
    // The retry is delayed (invisible to peek); its pending marker shows it was sent.
    const pending = await rt.table('leases').list('pending');
    expect(pending.some((r) => r.rowKey.startsWith('pool/workers@'))).toBe(true);
    if (got.acquired) await rt.leases.release(got.lease);
  });

  it('gives each invocation its own lease holder, so two in one process never reconcile an object at once', async () => {
    const { reconcileObject } = await import('../../src/reconcile/object.js');
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const outcomes = await Promise.all([1, 2].map(() => reconcileObject(rt, { kind: 'pool', name: 'workers' }, { reason: 'race' }, { log })));
    expect(outcomes.map((o) => o.status).sort()).toEqual(['busy', 'done']);
  });

  it('reconcileQueue drops a message for an object that is not configured', async () => {
    logs.length = 0;
    await reconcileQueue.handler(rt, { kind: 'pool', name: 'ghost', reason: 'forced' }, context('reconcileQueue'));
    expect(logs.join('\n')).toMatch(/pool\/ghost: not in the configuration/);
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
});
