/**
 * The instance cache on the ARM simulator:
 * - ARM list calls per scale set per refresh period, with 1 and with 8 concurrent passes
 *   every minute (each pass in its own client, as separate Functions instances): the cache's
 *   claim on its meta row should keep both at 1.
 * - CPU time per instance of a refresh (SDK deserialisation, status mapping, changed-row
 *   writes) as a multiple of `JSON.parse` of that instance's ARM JSON, the floor no refresh
 *   can go below. The simulator and Azurite run in other processes, so only Drover's side counts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../src/clock.js';
import { silentLog } from '../src/log.js';
import { startAzurite } from '../sim/azurite.js';
import { createStorage } from '../src/state/storage.js';
import { EntityTable } from '../src/state/entity-table.js';
import { createComputeScaleSetApi } from '../src/azure/compute-adapter.js';
import { ScaleSetCache } from '../src/cache/scale-set-cache.js';
import type { Benchmark, Figure } from './index.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-0000000be4c4';
const PERIOD_MS = 300_000;
const PERIODS = 4;
const INSTANCES = 500;

interface SimChild {
  url: string;
  caPem: string;
  request(msg: object): Promise<{ counts: { listVms: number } }>;
  close(): Promise<void>;
}

async function startSimChild(): Promise<SimChild> {
  const child: ChildProcess = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'arm-sim-child.js'), [SUBSCRIPTION], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const first = await new Promise<{ url: string; caPem: string }>((resolve) => child.once('message', (m) => resolve(m as { url: string; caPem: string })));
  const request = (msg: object) =>
    new Promise<{ counts: { listVms: number } }>((resolve) => {
      child.once('message', (m) => resolve(m as { counts: { listVms: number } }));
      child.send(msg);
    });
  return { ...first, request, close: () => new Promise((r) => { child.once('exit', () => r()); child.send({ close: true }); }) };
}

async function run(): Promise<Figure[]> {
  const azurite = await startAzurite();
  const sim = await startSimChild();
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-bench-'));
  const caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, sim.caPem);
  try {
    const azure = { subscriptionId: SUBSCRIPTION, credential: 'dev' as const, resourceManagerEndpoint: sim.url, caFile };
    const listCalls = async (name: string, concurrency: number) => {
      await sim.request({ addScaleSet: { resourceGroup: 'rg-bench', name, capacity: 20 } });
      const clock = new ManualClock(Date.now());
      const prefix = `b${name.replace(/\W/g, '')}`;
      const caches = await Promise.all(
        Array.from({ length: concurrency }, async (_, i) => {
          const storage = createStorage({ kind: 'connection', connectionString: azurite.connectionString }, prefix);
          if (i === 0) await storage.ensure();
          const api = await createComputeScaleSetApi(azure, { clock });
          return new ScaleSetCache(
            { table: new EntityTable(storage.table('instances')), api, clock, log: silentLog, holder: `instance-${i}` },
            { key: `rg-bench/${name}`, resourceGroup: 'rg-bench', name, periodMs: PERIOD_MS, jitterMs: 30_000, flags: { enableFastDeleteOnFailedProvisioning: true, enableDetailedCSEMessage: true, enableVmssFlexNodes: false } },
          );
        }),
      );
      const before = (await sim.request({})).counts.listVms;
      for (let minute = 0; minute < (PERIODS * PERIOD_MS) / 60_000; minute++) {
        await Promise.all(caches.map((c) => c.validate()));
        clock.advance(60_000);
      }
      return ((await sim.request({})).counts.listVms - before) / PERIODS;
    };
    const one = await listCalls('one', 1);
    const eight = await listCalls('eight', 8);

    // CPU of refreshes of a large scale set, against the floor of parsing its JSON.
    await sim.request({ addScaleSet: { resourceGroup: 'rg-bench', name: 'large', capacity: INSTANCES } });
    const storage = createStorage({ kind: 'connection', connectionString: azurite.connectionString }, 'bcpu');
    await storage.ensure();
    const clock = new ManualClock(Date.now());
    const api = await createComputeScaleSetApi(azure, { clock });
    const cache = new ScaleSetCache(
      { table: new EntityTable(storage.table('instances')), api, clock, log: silentLog, holder: 'bench' },
      { key: 'rg-bench/large', resourceGroup: 'rg-bench', name: 'large', periodMs: PERIOD_MS, jitterMs: 0, flags: { enableFastDeleteOnFailedProvisioning: true, enableDetailedCSEMessage: true, enableVmssFlexNodes: false } },
    );
    await cache.forceUpdate(); // first refresh writes every row; later ones only changes
    const rounds = 5;
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < rounds; i++) await cache.forceUpdate();
    const cpu = process.cpuUsage(cpu0);
    const refreshUsPerInstance = (cpu.user + cpu.system) / rounds / INSTANCES;

    const parseUsPerInstance = await parseFloorUs(sim.url, sim.caPem, SUBSCRIPTION, 'rg-bench', 'large');

    return [
      { label: 'ARM list calls per scale set per period, 1 pass a minute', value: one, unit: 'calls' },
      { label: 'ARM list calls per scale set per period, 8 concurrent passes a minute', value: eight, unit: 'calls' },
      { label: `refresh CPU per instance (${INSTANCES} VMs)`, value: refreshUsPerInstance, unit: 'µs' },
      { label: 'JSON.parse of one instance (the floor)', value: parseUsPerInstance, unit: 'µs' },
      { label: 'refresh CPU / JSON.parse floor', value: refreshUsPerInstance / parseUsPerInstance, unit: '×' },
    ];
  } finally {
    await sim.close();
    await azurite.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU (µs) of `JSON.parse` of one VM's ARM JSON (with its instance view), over one scale set's list: the floor a refresh is measured against. */
export async function parseFloorUs(url: string, ca: string, subscription: string, rg: string, name: string): Promise<number> {
  const { request } = await import('node:https');
  const target = new URL(`${url}/subscriptions/${subscription}/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}/virtualMachines?api-version=2024-07-01&$expand=instanceView`);
  const body = await new Promise<string>((resolve, reject) => {
    const req = request(target, { ca, headers: { authorization: 'Bearer bench' } }, (res) => {
      let data = '';
      res.on('data', (c: Buffer) => (data += c.toString()));
      res.on('end', () => resolve(data));
    });
    req.on('error', reject);
    req.end();
  });
  const texts = (JSON.parse(body) as { value: unknown[] }).value.map((v) => JSON.stringify(v));
  // The fastest of several batches of at least 20,000 parses: noise on a shared machine only adds.
  const rounds = Math.max(20, Math.ceil(20_000 / texts.length));
  let best = Infinity;
  for (let batch = 0; batch < 5; batch++) {
    const p0 = process.cpuUsage();
    for (let i = 0; i < rounds; i++) for (const text of texts) JSON.parse(text);
    const p = process.cpuUsage(p0);
    best = Math.min(best, (p.user + p.system) / rounds / texts.length);
  }
  return best;
}

const benchmark: Benchmark = { name: 'instance-cache', description: 'ARM list calls per period and refresh CPU per instance, on the ARM simulator', run };
export default benchmark;
