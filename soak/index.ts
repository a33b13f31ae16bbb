/**
 * `npm run soak`: about a minute of faults against two local hosts sharing one storage account,
 * then the invariants. Two `drover run` processes reconcile two pools and three targets while
 * the soak SIGKILLs a host now and then (and starts it again), restarts Azurite (once on-disk,
 * so state survives, once empty, as an in-memory Azurite restarts: the hosts make their tables
 * and queues again), runs one host with its clock an hour ahead (a preload that offsets its
 * Date.now, soak/skew-preload.ts), has ARM answer bursts of 429 and 500 and go silent for a while, and serves
 * one target's load from an endpoint that never answers. Then, with the faults stopped, every
 * invariant must hold within a bounded time: inventory rows = VMs, capacity ≤ maxCount, no
 * machine doubled, every queue drained, no lease longer than ~20 s, each target at the scale its
 * load asks for. Prints the figures; exits 1 if an invariant does not hold.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { startArmSim } from '../sim/arm/index.js';
import { startKubernetesSim } from '../sim/kubernetes/server.js';
import { createStorage } from '../src/state/storage.js';
import { EntityTable } from '../src/state/entity-table.js';
import { readInventory } from '../src/pool/inventory.js';
import { providerIdFromResourceId } from '../src/cache/ids.js';
import { startDiskAzurite } from './azurite-on-disk.js';
import { startFaultProxy } from './fault-proxy.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-000000000000';
const CHAOS_MS = 40_000;
const SETTLE_MS = 45_000;
const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli.js');
/** Host 1 runs with its Date.now an hour and a half minute ahead (soak/skew-preload.ts). */
const SKEW_PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'skew-preload.js');
const SKEW_MS = 3_630_000;

const POOLS = [
  { name: 'alpha', maxCount: 3, chunkSize: 2 },
  { name: 'beta', maxCount: 5, chunkSize: 3 },
];
/** Load and what it asks for: ceil(load / 10), within minScale 1 and maxScale 4. */
const TARGETS = [
  { name: 'web', load: 25, want: 3 },
  { name: 'api', load: 42, want: 4 },
];

const figures = { kills: 0, hostStarts: 0, azuriteRestarts: 0, azuriteEmptyRestarts: 0, throttled: 0, failed500: 0, silentMs: 0, messagesExecuted: 0, passes: 0, passesByHost: [0, 0] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-soak-'));
  const azurite = await startDiskAzurite(path.join(dir, 'azurite'));
  const arm = await startArmSim({ subscriptionId: SUBSCRIPTION, provisionDelayMs: 300, deleteDelayMs: 300 });
  for (const p of POOLS) arm.addScaleSet({ resourceGroup: 'rg-soak', name: p.name, capacity: 0 });
  const armProxy = await startFaultProxy(arm.url, arm.caPem);
  const kube = await startKubernetesSim({ readyDelayMs: 200 });
  for (const t of [...TARGETS, { name: 'quiet' }]) kube.add({ kind: 'Deployment', namespace: 'default', name: t.name }, { replicas: 1 });
  // Load answers; /quiet accepts and never answers (the silent endpoint).
  const loads = http.createServer((req, res) => {
    const t = TARGETS.find((x) => req.url === `/${x.name}`);
    if (t) res.writeHead(200).end(String(t.load));
  });
  await new Promise<void>((resolve) => loads.listen(0, '127.0.0.1', resolve));
  const loadUrl = `http://127.0.0.1:${(loads.address() as AddressInfo).port}`;

  const caFile = path.join(dir, 'arm-proxy-ca.pem');
  writeFileSync(caFile, armProxy.caPem!);
  const kubeconfig = path.join(dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, kube.kubeconfigYaml());
  const target = (name: string, load: object) => ({
    name,
    scaleTargetRef: { kind: 'Deployment', name },
    minScale: 1,
    maxScale: 4,
    scaleToZero: { enabled: false, stableWindow: '10s' },
    load: { source: 'http', timeout: '1s', targetPerReplica: 10, ...load },
  });
  const configFile = path.join(dir, 'drover.config.yaml');
  writeFileSync(configFile, stringify({
    storage: { connection: azurite.connectionString, prefix: 'soak' },
    azure: { subscriptionId: SUBSCRIPTION, credential: 'dev', resourceManagerEndpoint: armProxy.url, caFile, requestTimeout: '2s' },
    kubernetes: { kubeconfig, requestTimeout: '2s' },
    pools: POOLS.map((p) => ({ ...p, scaleSet: { resourceGroup: 'rg-soak', name: p.name }, creationRate: '0s,1', reconcileRate: '0s,1', instanceCache: { ttl: '5s' } })),
    targets: [...TARGETS.map((t) => target(t.name, { url: `${loadUrl}/${t.name}` })), target('quiet', { url: `${loadUrl}/quiet` })],
  }));

  const hosts: (ChildProcess | undefined)[] = [undefined, undefined];
  const startHost = (i: number) => {
    const skewed = i === 1;
    const child = spawn(process.execPath, [...(skewed ? ['--import', SKEW_PRELOAD] : []), CLI, '--config', configFile, 'run', '--verbose'], {
      env: { ...process.env, DROVER_SCHEDULE: '*/2 * * * * *', ...(skewed ? { DROVER_SOAK_SKEW_MS: String(SKEW_MS) } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const count = (chunk: Buffer) => {
      const text = chunk.toString();
      appendFileSync(path.join(dir, `host-${i}.log`), text);
      figures.messagesExecuted += (text.match(/executed message/g) ?? []).length;
      const passes = (text.match(/pass finished/g) ?? []).length;
      figures.passes += passes;
      figures.passesByHost[i]! += passes;
    };
    child.stdout?.on('data', count);
    child.stderr?.on('data', count);
    hosts[i] = child;
    figures.hostStarts++;
  };
  const stopHost = (i: number, signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      const child = hosts[i];
      hosts[i] = undefined;
      if (!child || child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });

  let code = 1;
  try {
    startHost(0);
    startHost(1);
    const started = Date.now();
    let random = 13;
    const next = () => (random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // A host that exited by itself (it starts while Azurite is down, say) is started again.
    const exited = (i: number) => hosts[i] !== undefined && hosts[i].exitCode !== null;
    for (let t = 0; Date.now() - started < CHAOS_MS; t++) {
      await sleep(1_000);
      for (const i of [0, 1]) if (exited(i)) startHost(i);
      if (t % 7 === 3) {
        const i = next() < 0.5 ? 0 : 1;
        await stopHost(i, 'SIGKILL');
        figures.kills++;
        setTimeout(() => startHost(i), 1_000);
      }
      if (t === 12) {
        await azurite.restart();
        figures.azuriteRestarts++;
      }
      if (t === 20) {
        // All tables and queues gone under the running hosts: they make them again and go on.
        await azurite.restartEmpty();
        figures.azuriteEmptyRestarts++;
      }
      if (t % 9 === 4) {
        arm.throttleNext(3, { retryAfter: 2 });
        figures.throttled += 3;
      }
      if (t % 11 === 6) {
        armProxy.fail(3);
        figures.failed500 += 3;
      }
      if (t === 25) {
        // Longer than the cache's TTL, so listings and capacity reads meet the silence.
        armProxy.silence(8_000);
        figures.silentMs += 8_000;
      }
    }
    await sleep(1_100);
    for (const i of [0, 1]) if (!hosts[i] || exited(i)) startHost(i);

    const storage = createStorage({ kind: 'connection', connectionString: azurite.connectionString }, 'soak');
    const check = async (): Promise<string[]> => {
      const problems: string[] = [];
      for (const p of POOLS) {
        const scaleSet = arm.scaleSet('rg-soak', p.name);
        const vms = scaleSet.vms().map((v) => providerIdFromResourceId(v.id));
        const rows = (await readInventory(new EntityTable(storage.table('machines')), p.name)).rows.map((r) => r.rowKey);
        if (scaleSet.capacity > p.maxCount) problems.push(`pool ${p.name}: capacity ${scaleSet.capacity} > maxCount ${p.maxCount}`);
        if (new Set(rows).size !== rows.length) problems.push(`pool ${p.name}: an inventory row is doubled`);
        if (new Set(vms).size !== vms.length) problems.push(`pool ${p.name}: a VM is doubled`);
        if ([...vms].sort().join() !== [...rows].sort().join()) problems.push(`pool ${p.name}: ${rows.length} inventory rows for ${vms.length} VMs`);
        if (vms.length !== p.maxCount) problems.push(`pool ${p.name}: ${vms.length} of ${p.maxCount} machines`);
      }
      for (const t of TARGETS) {
        const spec = kube.inspect({ kind: 'Deployment', namespace: 'default', name: t.name })?.specReplicas;
        if (spec !== t.want) problems.push(`target ${t.name}: scale ${spec}, its load asks for ${t.want}`);
      }
      for (const q of ['reconcile', 'probe'] as const) {
        const visible = (await storage.queue(q).peekMessages({ numberOfMessages: 32 })).peekedMessageItems.length;
        if (visible > 0) problems.push(`queue ${storage.names.queues[q]}: ${visible} message(s) waiting`);
      }
      // A lease's time is its TTL on the storage service's clock: none may be longer than ~20 s.
      for (const lease of await new EntityTable(storage.table('leases')).list<{ ttlMs?: number }>('lease')) {
        const { ttlMs } = lease.props;
        if (ttlMs !== undefined && ttlMs > 20_000) problems.push(`lease ${lease.rowKey}: a TTL of ${ttlMs} ms`);
      }
      return problems;
    };
    const settleStart = Date.now();
    let problems = await check().catch((err: unknown) => [String(err)]);
    while (problems.length > 0 && Date.now() - settleStart < SETTLE_MS) {
      await sleep(1_000);
      problems = await check().catch((err: unknown) => [String(err)]);
    }
    const decisions = (await new EntityTable(storage.table('decisions')).list()).length;
    const poison = await Promise.all((['reconcile', 'probe'] as const).map(async (q) => (await storage.poisonQueue(q).peekMessages({ numberOfMessages: 32 })).peekedMessageItems.length));
    console.log(`soak: ${Math.round((Date.now() - started) / 1000)} s; settled in ${Math.round((Date.now() - settleStart) / 1000)} s`);
    console.log(`figures: ${Object.entries({ ...figures, decisionsRecorded: decisions, armHeldRequests: armProxy.counts.held, poisonMessages: poison[0]! + poison[1]! }).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    // The figures come from the hosts' --verbose lines: a soak in which none ran proves nothing.
    if (figures.passes === 0) problems.push('no timer pass was seen in the hosts\' output');
    // The correct host must not be kept from its objects by the skewed one.
    if (figures.passesByHost[0] === 0) problems.push('the host with the correct clock ran no timer pass');
    if (problems.length === 0) {
      console.log('invariants: all hold (inventory rows = VMs, capacity ≤ maxCount, nothing doubled, queues drained, leases ≤ 20 s, targets at the scale their load asks for)');
      code = 0;
    } else {
      console.log(`invariants that do not hold:\n  ${problems.join('\n  ')}`);
    }
  } finally {
    await Promise.all([0, 1].map((i) => stopHost(i, 'SIGTERM')));
    loads.closeAllConnections();
    loads.close();
    await Promise.all([armProxy.close(), arm.close(), kube.close(), azurite.stop()]);
    // The hosts' logs are kept when an invariant does not hold: they tell why.
    if (code === 0) rmSync(dir, { recursive: true, force: true });
    else console.log(`hosts' logs: ${dir}`);
  }
  return code;
}

process.exitCode = await main();
