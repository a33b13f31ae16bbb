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
 * - the passes after the warm ones, where the caches listed together expire (within the default
 *   jitter): how many list in the busiest pass, and its CPU;
 * - `drover status --json` in a fresh process, on the fleet reconciled: wall time and requests.
 * `DROVER_BENCH_POOL_SIZES=100x10,20x250,100x1000` (the default; `--quick`: 20x250) picks the sizes.
 */
import { ManualClock } from '../src/clock.js';
import { parseConfig } from '../src/config/load.js';
import { silentLog } from '../src/log.js';
import { runPass } from '../src/reconcile/pass.js';
import { createRuntime } from '../src/runtime/runtime.js';
import type { Benchmark, Figure } from './index.js';
import { parseFloorUs } from './instance-cache.js';
import { simulatedService } from '../src/state/service-clock.js';
import { quick, startBenchWorld, SUBSCRIPTION, type BenchWorld } from './bench-world.js';
import { timeStatusCli } from './status-cli.js';
import { profiled } from './profile.js';

/**
 * Warm passes measured after the settling pass, a minute apart: the ones that fit in the cache's
 * period (5 min by default) with it, so none of them lists (the pass after them would).
 */
const WARM_PASSES = 3;
/** Passes after the warm ones, a minute apart, watched for the caches listing again (the period and its jitter). */
const LISTING_PASSES = 3;

export function parseSizes(text: string): { scaleSets: number; vms: number }[] {
  return text.split(',').map((s) => {
    const m = /^(\d+)x(\d+)$/.exec(s.trim());
    if (!m) throw new Error(`DROVER_BENCH_POOL_SIZES: expected SCALESETSxVMS, got "${s}"`);
    return { scaleSets: Number(m[1]), vms: Number(m[2]) };
  });
}

const cpuUs = (u: NodeJS.CpuUsage) => u.user + u.system;

/** The goals (issue 24): requests per scale set, CPU against the floor, the pass's budget, status. */
const COLD_REQUESTS_GOAL = 15;
const WARM_REQUESTS_GOAL = 4;
const WARM_READS_GOAL = 3;
const CPU_RATIO_GOAL = 10;
/** The timer pass's budget (the default schedule's minute, less the host's margins). */
const PASS_BUDGET_S = 45;
const STATUS_GOAL_S = 5;

interface Measured {
  requests: number;
  reads: number;
  arm: number;
  listings: number;
  cpu: number;
  wallMs: number;
}

const DEFAULT_SIZES = '100x10,20x250,100x1000';

async function run(): Promise<Figure[]> {
  const sizes = parseSizes(process.env.DROVER_BENCH_POOL_SIZES ?? (quick() ? '20x250' : DEFAULT_SIZES));
  const warmCpu = new Map<string, number>();
  const world = await startBenchWorld('pool');
  const figures: Figure[] = [];
  try {
    for (const [i, size] of sizes.entries()) figures.push(...(await runSize(world, i, size, warmCpu)));
    const big = warmCpu.get('100x1000');
    const small = warmCpu.get('100x10');
    if (big !== undefined && small !== undefined) figures.push({ label: 'warm pass CPU, 100 × 1,000 / 100 × 10', value: big / small, unit: '×' });
    return figures;
  } finally {
    await world.close();
  }
}

async function runSize(world: BenchWorld, i: number, { scaleSets, vms }: { scaleSets: number; vms: number }, warmCpu: Map<string, number>): Promise<Figure[]> {
  const { sim } = world;
  const label = `${scaleSets}×${vms}`;
  const rg = `rg-pool-${i}`;
  for (let n = 0; n < scaleSets; n++) await sim.request({ addScaleSet: { resourceGroup: rg, name: `vmss${n}`, capacity: vms } });
  const doc = {
    storage: { connection: world.connection, prefix: `bpool${i}` },
    azure: world.azure,
    pools: Array.from({ length: scaleSets }, (_, n) => ({ name: `pool${n}`, scaleSet: { resourceGroup: rg, name: `vmss${n}` }, maxCount: vms })),
  };
  const clock = new ManualClock(Date.now());
  const rt = await createRuntime({ config: parseConfig(doc), clock, serviceClock: simulatedService(clock), env: {} });
  await rt.storage.ensure();
  await rt.scaleSetApi();

  const measure = async (profile?: string): Promise<Measured> => {
    const start = await sim.request({});
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    const pass = () => runPass(rt, { log: silentLog, budgetMs: Infinity, concurrency: 4 });
    const report = await (profile ? profiled(profile, pass) : pass());
    const wallMs = performance.now() - wall0;
    const cpu = cpuUs(process.cpuUsage(cpu0));
    if (report.errors > 0) throw new Error(`pool bench ${label}: ${report.errors} pool(s) failed: ${JSON.stringify(report.outcomes.find((o) => o.status === 'failed'))}`);
    const end = await sim.request({});
    if (process.env.DROVER_BENCH_POOL_BREAKDOWN) {
      const diff = Object.entries(end.byKind).map(([k, v]) => `${k}: ${((v - (start.byKind[k] ?? 0)) / scaleSets).toFixed(2)}`);
      const arm = Object.entries(end.counts).map(([k, v]) => `${k}: ${((v - start.counts[k]!) / scaleSets).toFixed(2)}`);
      console.error(`${label}: ${diff.join(', ')}\n  ARM: ${arm.join(', ')}`);
    }
    const reads = Object.entries(end.byKind).filter(([k]) => k.startsWith('GET ')).reduce((sum, [k, v]) => sum + v - (start.byKind[k] ?? 0), 0);
    return {
      requests: (end.tableRequests - start.tableRequests) / scaleSets,
      reads: reads / scaleSets,
      arm: (end.counts.requests - start.counts.requests) / scaleSets,
      listings: end.counts.listVms - start.counts.listVms,
      cpu,
      wallMs,
    };
  };
  const cold = await measure(`pool-cold-${scaleSets}x${vms}`);
  const peakRss = process.resourceUsage().maxRSS / 1024;
  clock.advance(61_000);
  const settling = await measure();
  const warm = { requests: 0, reads: 0, arm: 0, cpu: 0 };
  for (let n = 0; n < WARM_PASSES; n++) {
    clock.advance(61_000);
    const one = await measure();
    for (const k of ['requests', 'reads', 'arm', 'cpu'] as const) warm[k] += one[k] / WARM_PASSES;
  }
  warmCpu.set(`${scaleSets}x${vms}`, warm.cpu);
  // The caches listed in the cold pass expire together, within the default jitter: the busiest pass.
  let busiest: Measured | undefined;
  for (let n = 0; n < LISTING_PASSES; n++) {
    clock.advance(61_000);
    const one = await measure();
    if (!busiest || one.listings > busiest.listings) busiest = one;
  }
  const statusRun = await timeStatusCli(world, doc, true);

  const floor = await parseFloorUs(sim.url, sim.caPem, SUBSCRIPTION, rg, 'vmss0');
  const coldPerVm = cold.cpu / (scaleSets * vms);
  return [
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
    { label: `${label} caches listing again in the busiest pass (default jitter, ${LISTING_PASSES} passes after the warm ones)`, value: busiest!.listings, unit: `of ${scaleSets}` },
    { label: `${label} that pass: Drover CPU`, value: busiest!.cpu / 1e6, unit: 's' },
    { label: `${label} that pass: wall time`, value: busiest!.wallMs / 1000, unit: 's', goal: PASS_BUDGET_S / 2 },
    { label: `${label} drover status --json (fresh process): wall time`, value: statusRun.wallMs / 1000, unit: 's', goal: STATUS_GOAL_S },
    { label: `${label} drover status --json: Table requests per scale set`, value: statusRun.requests / scaleSets, unit: 'requests' },
  ];
}

const benchmark: Benchmark = { name: 'pool', description: 'Table requests per scale set, Drover CPU per VM of pool passes and drover status, on the ARM simulator and Azurite', run };
export default benchmark;
