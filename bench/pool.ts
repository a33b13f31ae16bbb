/**
 * Pool passes on the ARM simulator and Azurite, at fleet sizes (scale sets × VMs each):
 * - Table requests per scale set of a cold pass (every VM adopted, the instance cache built)
 *   and of a warm pass a minute later (nothing to do), counted by a proxy in front of Azurite;
 * - Drover CPU per VM of the cold pass, against the floor of `JSON.parse` of the same ARM
 *   answers. The simulator, the proxy and Azurite run in other processes.
 * `DROVER_BENCH_POOL_SIZES=20x250,100x1000` (the default) picks the sizes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../src/clock.js';
import { parseConfig } from '../src/config/load.js';
import { silentLog } from '../src/log.js';
import { runPass } from '../src/reconcile/pass.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { startAzurite } from '../sim/azurite.js';
import type { Benchmark, Figure } from './index.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-0000000be4c5';

interface Reply {
  counts: { listVms: number };
  tableRequests: number;
  /** Requests by verb and table (or `$batch`), for finding where they go. */
  byKind: Record<string, number>;
  proxyPort?: number;
}

interface SimChild {
  url: string;
  caPem: string;
  request(msg: object): Promise<Reply>;
  close(): Promise<void>;
}

async function startSimChild(): Promise<SimChild> {
  const child: ChildProcess = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'arm-sim-child.js'), [SUBSCRIPTION], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const first = await new Promise<{ url: string; caPem: string }>((resolve) => child.once('message', (m) => resolve(m as { url: string; caPem: string })));
  const request = (msg: object) =>
    new Promise<Reply>((resolve) => {
      child.once('message', (m) => resolve(m as Reply));
      child.send(msg);
    });
  return { ...first, request, close: () => new Promise((r) => { child.once('exit', () => r()); child.send({ close: true }); }) };
}

export function parseSizes(text: string): { scaleSets: number; vms: number }[] {
  return text.split(',').map((s) => {
    const m = /^(\d+)x(\d+)$/.exec(s.trim());
    if (!m) throw new Error(`DROVER_BENCH_POOL_SIZES: expected SCALESETSxVMS, got "${s}"`);
    return { scaleSets: Number(m[1]), vms: Number(m[2]) };
  });
}

const cpuUs = (u: NodeJS.CpuUsage) => u.user + u.system;

async function run(): Promise<Figure[]> {
  const sizes = parseSizes(process.env.DROVER_BENCH_POOL_SIZES ?? '20x250,100x1000');
  const azurite = await startAzurite({ timeoutMs: 60_000 });
  const sim = await startSimChild();
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-bench-pool-'));
  const caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, sim.caPem);
  const tablePort = Number(/TableEndpoint=http:\/\/127\.0\.0\.1:(\d+)/.exec(azurite.connectionString)![1]);
  const { proxyPort } = await sim.request({ proxy: tablePort });
  const connection = azurite.connectionString.replace(`:${tablePort}/`, `:${proxyPort}/`);
  const figures: Figure[] = [];
  try {
    for (const [i, { scaleSets, vms }] of sizes.entries()) {
      const label = `${scaleSets}×${vms}`;
      const rg = `rg-pool-${i}`;
      for (let n = 0; n < scaleSets; n++) await sim.request({ addScaleSet: { resourceGroup: rg, name: `vmss${n}`, capacity: vms } });
      const config = parseConfig({
        storage: { connection, prefix: `bpool${i}` },
        azure: { subscriptionId: SUBSCRIPTION, credential: 'dev', resourceManagerEndpoint: sim.url, caFile },
        pools: Array.from({ length: scaleSets }, (_, n) => ({ name: `pool${n}`, scaleSet: { resourceGroup: rg, name: `vmss${n}` }, maxCount: vms })),
      });
      const clock = new ManualClock(Date.now());
      const rt = await createRuntime({ config, clock, env: {} });
      await rt.storage.ensure();
      await rt.scaleSetApi();

      const measure = async () => {
        const start = await sim.request({});
        const before = start.tableRequests;
        const cpu0 = process.cpuUsage();
        const report = await runPass(rt, { log: silentLog, budgetMs: Infinity, concurrency: 4 });
        const cpu = cpuUs(process.cpuUsage(cpu0));
        if (report.errors > 0) throw new Error(`pool bench ${label}: ${report.errors} pool(s) failed: ${JSON.stringify(report.outcomes.find((o) => o.status === 'failed'))}`);
        const end = await sim.request({});
        if (process.env.DROVER_BENCH_POOL_BREAKDOWN) {
          const diff = Object.entries(end.byKind).map(([k, v]) => `${k}: ${((v - (start.byKind[k] ?? 0)) / scaleSets).toFixed(2)}`);
          console.error(`${label}: ${diff.join(', ')}`);
        }
        return { requests: (end.tableRequests - before) / scaleSets, cpu };
      };
      const cold = await measure();
      clock.advance(61_000);
      const warm = await measure();

      const floor = await parseFloorUs(sim.url, sim.caPem, rg, 'vmss0');
      const coldPerVm = cold.cpu / (scaleSets * vms);
      figures.push(
        { label: `${label} cold pass: Table requests per scale set`, value: cold.requests, unit: 'requests' },
        { label: `${label} warm pass: Table requests per scale set`, value: warm.requests, unit: 'requests' },
        { label: `${label} cold pass: Drover CPU per VM`, value: coldPerVm, unit: 'µs' },
        { label: `${label} JSON.parse of one VM (the floor)`, value: floor, unit: 'µs' },
        { label: `${label} cold pass CPU / floor`, value: coldPerVm / floor, unit: '×' },
      );
    }
    return figures;
  } finally {
    await sim.close();
    await azurite.stop();
  }
}

/** CPU of `JSON.parse` of one VM's ARM JSON (with its instance view), over one scale set's list. */
async function parseFloorUs(url: string, ca: string, rg: string, name: string): Promise<number> {
  const { request } = await import('node:https');
  const target = new URL(`${url}/subscriptions/${SUBSCRIPTION}/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}/virtualMachines?api-version=2024-07-01&$expand=instanceView`);
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
  const rounds = 200;
  const p0 = process.cpuUsage();
  for (let i = 0; i < rounds; i++) for (const text of texts) JSON.parse(text);
  return cpuUs(process.cpuUsage(p0)) / rounds / texts.length;
}

const benchmark: Benchmark = { name: 'pool', description: 'Table requests per scale set and Drover CPU per VM of pool passes, on the ARM simulator and Azurite', run };
export default benchmark;
