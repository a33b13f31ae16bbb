/**
 * Pool passes on the ARM simulator and Azurite, at fleet sizes (scale sets × VMs each):
 * - Table requests per scale set of a cold pass (every VM adopted, the instance cache built),
 *   of the settling pass a minute later (it reads everything once more, changes nothing and
 *   records what it saw) and of the warm passes after it, a minute apart, counted by a proxy in
 *   front of Azurite; Table reads (GETs) and ARM calls per scale set of a warm pass;
 * - Drover CPU per VM of the cold pass, against the floor of `JSON.parse` of the same ARM
 *   answers; Drover CPU of a warm pass, and at 100 × 1,000 against 100 × 10 (the O(1) claim);
 * - the process's peak RSS after the cold pass. The simulator, the proxy and Azurite run in
 *   other processes.
 * `DROVER_BENCH_POOL_SIZES=100x10,20x250,100x1000` (the default) picks the sizes.
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
import { parseFloorUs } from './instance-cache.js';
import { simulatedService } from '../src/state/service-clock.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-0000000be4c5';

/**
 * Warm passes measured after the settling pass, a minute apart: the ones that fit in the cache's
 * period (5 min by default) with it, so none of them lists (the pass after them would).
 */
const WARM_PASSES = 3;

interface Reply {
  counts: { listVms: number; requests: number } & Record<string, number>;
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

/** The goals (issue 24): requests per scale set, CPU against the floor, the pass's budget. */
const COLD_REQUESTS_GOAL = 15;
const WARM_REQUESTS_GOAL = 4;
const WARM_READS_GOAL = 3;
const CPU_RATIO_GOAL = 10;
/** The timer pass's budget (the default schedule's minute, less the host's margins). */
const PASS_BUDGET_S = 45;

/**
 * A fleet of 100 pools and 50 targets, per hour: a pool pass a minute (the timer), a target pass
 * a minute (timer only) or one per default poll interval (15 s, an http or queue target's
 * chain). The steady target pass's requests are what test/infra/request-counts.test.ts asserts.
 */
const FLEET = { pools: 100, targets: 50, targetPassRequests: 6, pollIntervalS: 15, timerPeriodS: 60, goal: 40_000 };

function fleetPerHour(size: string, warmPoolRequests: number): Figure[] {
  const passes = (periodS: number) => 3_600 / periodS;
  const pools = FLEET.pools * warmPoolRequests * passes(FLEET.timerPeriodS);
  const timerOnly = pools + FLEET.targets * FLEET.targetPassRequests * passes(FLEET.timerPeriodS);
  const polled = pools + FLEET.targets * FLEET.targetPassRequests * passes(FLEET.pollIntervalS);
  return [
    { label: `${size} warm, as ${FLEET.pools} pools + ${FLEET.targets} targets, timer only: Table requests per hour`, value: Math.round(timerOnly), unit: 'requests', goal: FLEET.goal },
    { label: `${size} the same at the default poll interval (${FLEET.pollIntervalS} s)`, value: Math.round(polled), unit: 'requests' },
  ];
}

async function run(): Promise<Figure[]> {
  const sizes = parseSizes(process.env.DROVER_BENCH_POOL_SIZES ?? '100x10,20x250,100x1000');
  const warmCpu = new Map<string, number>();
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
      const rt = await createRuntime({ config, clock, serviceClock: simulatedService(clock), env: {} });
      await rt.storage.ensure();
      await rt.scaleSetApi();

      const measure = async () => {
        const start = await sim.request({});
        const before = start.tableRequests;
        const cpu0 = process.cpuUsage();
        const wall0 = performance.now();
        const report = await runPass(rt, { log: silentLog, budgetMs: Infinity, concurrency: 4 });
        const wallMs = performance.now() - wall0;
        const cpu = cpuUs(process.cpuUsage(cpu0));
        if (report.errors > 0) throw new Error(`pool bench ${label}: ${report.errors} pool(s) failed: ${JSON.stringify(report.outcomes.find((o) => o.status === 'failed'))}`);
        const end = await sim.request({});
        if (process.env.DROVER_BENCH_POOL_BREAKDOWN) {
          const diff = Object.entries(end.byKind).map(([k, v]) => `${k}: ${((v - (start.byKind[k] ?? 0)) / scaleSets).toFixed(2)}`);
          const arm = Object.entries(end.counts).map(([k, v]) => `${k}: ${((v - (start.counts as Record<string, number>)[k]!) / scaleSets).toFixed(2)}`);
          console.error(`${label}: ${diff.join(', ')}\n  ARM: ${arm.join(', ')}`);
        }
        const reads = Object.entries(end.byKind).filter(([k]) => k.startsWith('GET ')).reduce((sum, [k, v]) => sum + v - (start.byKind[k] ?? 0), 0);
        return { requests: (end.tableRequests - before) / scaleSets, reads: reads / scaleSets, arm: (end.counts.requests - start.counts.requests) / scaleSets, cpu, wallMs };
      };
      const cold = await measure();
      const peakRss = process.resourceUsage().maxRSS / 1024;
      clock.advance(61_000);
      const settling = await measure();
      const warm = { requests: 0, reads: 0, arm: 0, cpu: 0, wallMs: 0 };
      for (let n = 0; n < WARM_PASSES; n++) {
        clock.advance(61_000);
        const one = await measure();
        for (const k of ['requests', 'reads', 'arm', 'cpu', 'wallMs'] as const) warm[k] += one[k] / WARM_PASSES;
      }
      warmCpu.set(`${scaleSets}x${vms}`, warm.cpu);

      const floor = await parseFloorUs(sim.url, sim.caPem, SUBSCRIPTION, rg, 'vmss0');
      const coldPerVm = cold.cpu / (scaleSets * vms);
      figures.push(
        { label: `${label} cold pass: Table requests per scale set`, value: cold.requests, unit: 'requests', goal: COLD_REQUESTS_GOAL },
        { label: `${label} cold pass: wall time`, value: cold.wallMs / 1000, unit: 's', goal: PASS_BUDGET_S / 2 },
        { label: `${label} settling pass (a minute after the cold one): Table requests per scale set`, value: settling.requests, unit: 'requests' },
        { label: `${label} warm pass (mean of ${WARM_PASSES}, a minute apart): Table requests per scale set`, value: warm.requests, unit: 'requests', goal: WARM_REQUESTS_GOAL },
        { label: `${label} warm pass: Table reads per scale set`, value: warm.reads, unit: 'reads', goal: WARM_READS_GOAL },
        { label: `${label} warm pass: ARM calls per scale set`, value: warm.arm, unit: 'calls' },
        { label: `${label} warm pass: Drover CPU`, value: warm.cpu / 1000, unit: 'ms' },
        { label: `${label} peak RSS after the cold pass`, value: peakRss, unit: 'MiB' },
        { label: `${label} cold pass: Drover CPU per VM`, value: coldPerVm, unit: 'µs' },
        { label: `${label} JSON.parse of one VM (the floor)`, value: floor, unit: 'µs' },
        { label: `${label} cold pass CPU / floor`, value: coldPerVm / floor, unit: '×', goal: CPU_RATIO_GOAL },
      );
      if (scaleSets === FLEET.pools) figures.push(...fleetPerHour(label, warm.requests));
    }
    const big = warmCpu.get('100x1000');
    const small = warmCpu.get('100x10');
    if (big !== undefined && small !== undefined) figures.push({ label: 'warm pass CPU, 100 × 1,000 / 100 × 10', value: big / small, unit: '×' });
    return figures;
  } finally {
    await sim.close();
    await azurite.stop();
  }
}

const benchmark: Benchmark = { name: 'pool', description: 'Table requests per scale set and Drover CPU per VM of pool passes, on the ARM simulator and Azurite', run };
export default benchmark;
