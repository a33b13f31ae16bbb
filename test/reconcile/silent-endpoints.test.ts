// Issue 13: one silent endpoint no longer stalls a pass. An ARM listing and a Kubernetes API
// server that accept the connection and never answer fail their own object after the request
// timeout (2 s here); the other pool and target are reconciled, and status names the timeout.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { reconcileObject } from '../../src/reconcile/object.js';
import { runPass } from '../../src/reconcile/pass.js';
import { runCli } from '../../src/cli.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { silentLog } from '../../src/log.js';
import { buildStatus } from '../../src/status/status.js';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';
import { armWorld, type ArmWorld } from '../support/arm.js';
import { azuriteStorage, tempDir, writeConfig } from '../support/config.js';
import { silentProxy, type SilentProxy } from '../support/silent-proxy.js';

let arm: ArmWorld;
let kube: KubernetesSim;
let armProxy: SilentProxy;
let kubeProxy: SilentProxy;
let rt: Runtime;
/** Same world, the default request timeouts (30 s, 10 s): only the pass's budget ends the waits. */
let patientFile: string;
let proxyCaFile: string;

const target = (name: string) => ({
  name,
  scaleTargetRef: { kind: 'Deployment', name },
  minScale: 2,
  maxScale: 5,
  scaleToZero: { enabled: false },
  load: { source: 'push', targetPerReplica: 10 },
});
const pool = (name: string) => ({ name, scaleSet: { resourceGroup: 'rg-silent', name }, maxCount: 2, chunkSize: 2, creationRate: '0s,1', reconcileRate: '0s,1' });

beforeAll(async () => {
  arm = await armWorld();
  kube = await startKubernetesSim({ readyDelayMs: 0 });
  arm.sim.addScaleSet({ resourceGroup: 'rg-silent', name: 'stuck', capacity: 0 });
  arm.sim.addScaleSet({ resourceGroup: 'rg-silent', name: 'fine', capacity: 0 });
  kube.add({ kind: 'Deployment', namespace: 'default', name: 'web' }, { replicas: 1 });
  kube.add({ kind: 'Deployment', namespace: 'default', name: 'api' }, { replicas: 1 });
  // Silent: the VM listing of scale set "stuck", and every request about Deployment "web".
  armProxy = await silentProxy(arm.sim.url, (req) => /\/virtualMachineScaleSets\/stuck\/virtualMachines/.test(req.url ?? ''), { upstreamCa: arm.sim.caPem });
  kubeProxy = await silentProxy(kube.url, (req) => /\/deployments\/web\b/.test(req.url ?? ''));
  const dir = tempDir();
  const caFile = path.join(dir, 'proxy-ca.pem');
  writeFileSync(caFile, armProxy.caPem!);
  proxyCaFile = caFile;
  const kubeconfig = path.join(dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'silent', cluster: { server: kubeProxy.url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'u', user: { token: 'any' } }],
    contexts: [{ name: 'silent', context: { cluster: 'silent', user: 'u' } }],
    'current-context': 'silent',
  }));
  const file = writeConfig({
    storage: azuriteStorage(),
    azure: { ...arm.azure, resourceManagerEndpoint: armProxy.url, caFile, requestTimeout: '2s' },
    kubernetes: { kubeconfig, requestTimeout: '2s' },
    pools: [pool('stuck'), pool('fine')],
    targets: [target('web'), target('api')],
  }, dir);
  rt = await createRuntime({ configFile: file });
  await rt.storage.ensure();
  patientFile = writeConfig({
    storage: azuriteStorage(),
    azure: { ...arm.azure, resourceManagerEndpoint: armProxy.url, caFile },
    kubernetes: { kubeconfig },
    pools: [pool('stuck'), pool('fine')],
    targets: [target('web')],
  }, tempDir());
});
afterAll(async () => {
  await Promise.all([armProxy?.close(), kubeProxy?.close()]);
  await Promise.all([arm?.sim.close(), kube?.close()]);
});

describe('a pass over a silent ARM listing and a silent API server', () => {
  it('ends a few seconds after the 2 s timeouts, the others reconciled, status naming the timeout', async () => {
    // A target's first reconcile adopts it as it is: api is adopted (at 1) before the pass, so
    // the pass decides on it and scales it up to its minScale.
    await reconcileObject(rt, { kind: 'target', name: 'api' }, { reason: 'timer' }, { log: silentLog });
    expect(kube.inspect({ kind: 'Deployment', namespace: 'default', name: 'api' })?.specReplicas).toBe(1);
    const started = Date.now();
    const report = await runPass(rt, { log: silentLog, concurrency: 4, budgetMs: 40_000 });
    const took = Date.now() - started;

    expect(armProxy.held(), JSON.stringify(report.outcomes)).toBeGreaterThan(0);
    expect(kubeProxy.held(), JSON.stringify(report.outcomes)).toBeGreaterThan(0);
    expect(took).toBeLessThan(12_000);
    const by = Object.fromEntries(report.outcomes.map((o) => [`${o.ref.kind}/${o.ref.name}`, o]));
    expect(by['pool/fine']?.status).toBe('done');
    expect(by['target/api']?.status).toBe('done');
    expect(by['pool/stuck']?.status).toBe('failed');
    expect(by['target/web']?.status).toBe('failed');
    expect(arm.sim.scaleSet('rg-silent', 'fine').capacity).toBe(2);
    expect(kube.inspect({ kind: 'Deployment', namespace: 'default', name: 'api' })?.specReplicas).toBe(2);

    const status = await buildStatus(rt);
    const stuck = status.pools.find((p) => p.name === 'stuck');
    expect(stuck?.cache?.lastError, JSON.stringify(stuck?.cache)).toMatch(/timed out after 2s/);
    const web = status.targets.find((t) => t.name === 'web');
    expect(web?.lastError, JSON.stringify(web)).toMatch(/timed out after 2s/);
  });
});

describe('the pass deadline', () => {
  it('aborts what still runs at the budget and hands it to the reconcile queue', async () => {
    const patient = await createRuntime({ configFile: patientFile });
    await patient.storage.ensure();
    const started = Date.now();
    const report = await runPass(patient, { log: silentLog, budgetMs: 1_500 });
    expect(Date.now() - started).toBeLessThan(1_500 + 2_000 + 1_500);
    const by = Object.fromEntries(report.outcomes.map((o) => [`${o.ref.kind}/${o.ref.name}`, o.status]));
    expect(by).toEqual({ 'pool/stuck': 'aborted', 'pool/fine': 'done', 'target/web': 'aborted' });
    expect(report.enqueued).toEqual(expect.arrayContaining([{ kind: 'pool', name: 'stuck' }, { kind: 'target', name: 'web' }]));
    expect(report.enqueued).toHaveLength(2);
    // Each is pending now, with a message on its way (one already on the queue from an earlier
    // reconcile serves it when it comes as soon: requests for one object collapse).
    for (const ref of [{ kind: 'pool' as const, name: 'stuck' }, { kind: 'target' as const, name: 'web' }]) {
      const marker = (await patient.queues.markers!.read(ref))?.pending;
      expect(marker?.dueAt).toBeLessThanOrEqual(Date.now() + 2_000);
      expect(marker?.sentAt).toBeLessThanOrEqual(Date.now() + 2_000);
    }
    expect((await patient.storage.queue('reconcile').getProperties()).approximateMessagesCount).toBeGreaterThanOrEqual(2);
  });

  it('drover reconcile has the same budget, enqueues nothing and exits 1 naming what it could not finish', async () => {
    let stdout = '';
    let stderr = '';
    const file = writeConfig({
      storage: azuriteStorage(),
      azure: { ...arm.azure, resourceManagerEndpoint: armProxy.url, caFile: proxyCaFile },
      pools: [pool('stuck'), pool('fine')],
    }, tempDir());
    const code = await runCli(['--config', file, 'reconcile', '--budget', '1500ms'], {
      stdout: (s) => (stdout += s),
      stderr: (s) => (stderr += s),
      env: {},
    });
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(/could not finish within .*: pool\/stuck$/m);
    expect(stdout).toMatch(/pool\/stuck +ABORTED: the pass ran out of its 1\.5s budget/);
    const cli = await createRuntime({ configFile: file });
    expect((await cli.storage.queue('reconcile').peekMessages({ numberOfMessages: 32 })).peekedMessageItems).toEqual([]);
  });
});
