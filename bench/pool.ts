/**
 * Pool passes on the ARM simulator and Azurite, at fleet sizes (scale sets × VMs each):
 * - the cold pass (every VM adopted, the instance cache built): Table requests per scale set,
 *   counted by a proxy in front of Azurite, its wall time, and Drover CPU per VM against the
 *   floor of `JSON.parse` of the same ARM answers, the median of COLD_RUNS fleets of the size
 *   (one process, after the sizes before it; the machine's CPU time varies by a third run to run);
 * - the settling pass a minute later (it reads everything once more and records what it saw);
 * - the timer's passes over the cache's period after it, a minute apart: with the default jitter
 *   the caches listed together in the cold pass list next spread over the period (how many in
 *   the busiest pass, its CPU and wall time), and the Table requests of a minute's pass;
 * - a pass of each pool alone after that, sorted by whether its cache listed: a warm pool's
 *   requests, reads, ARM calls and CPU, and a listing pool's requests;
 * - the process's peak RSS after the cold pass (the simulator, the proxy and Azurite run in
 *   other processes), and `drover status --json` in a fresh process on the fleet reconciled.
 * `DROVER_BENCH_POOL_SIZES=100x10,20x250,100x1000` (the default; `--quick`: 20x250) picks the
 * sizes; `DROVER_BENCH_POOL_BREAKDOWN=1` prints each pass's requests by table and ARM call;
 * `DROVER_BENCH_PROFILE=DIR` writes a CPU profile of each size's first cold pass (profile.ts).
 */
import { ManualClock } from '../src/clock.js';
import { parseConfig } from '../src/config/load.js';
import { silentLog } from '../src/log.js';
import { runPass } from '../src/reconcile/pass.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import type { Benchmark, Figure } from './index.js';
import { parseFloorUs } from './instance-cache.js';
import { simulatedService } from '../src/state/service-clock.js';
import { quick, startBenchWorld, SUBSCRIPTION, type BenchWorld, type SimReply } from './bench-world.js';
import { reconcileObject } from '../src/reconcile/object.js';
import { timeStatusCli } from './status-cli.js';
import { profiled } from './profile.js';

/** Cold passes measured per size, each on a fleet of its own: their CPU's median is reported. */
const COLD_RUNS = 3;
/** The timer's passes after the settling one, a minute apart: the cache's period (5 minutes by default). */
const PERIOD_PASSES = 5;

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
    if (big !== undefined && small !== undefined) figures.push({ label: 'warm pass CPU per pool, 1,000 VMs / 10 VMs', value: big / small, unit: '×' });
    return figures;
  } finally {
    await world.close();
  }
}

interface Fleet {
  rt: Runtime;
  clock: ManualClock;
  doc: Record<string, unknown>;
  rg: string;
}

async function newFleet(world: BenchWorld, tag: string, { scaleSets, vms }: { scaleSets: number; vms: number }): Promise<Fleet> {
  const rg = `rg-pool-${tag}`;
  for (let n = 0; n < scaleSets; n++) await world.sim.request({ addScaleSet: { resourceGroup: rg, name: `vmss${n}`, capacity: vms } });
  const doc = {
    storage: { connection: world.connection, prefix: `bpool${tag}` },
    azure: world.azure,
    pools: Array.from({ length: scaleSets }, (_, n) => ({ name: `pool${n}`, scaleSet: { resourceGroup: rg, name: `vmss${n}` }, maxCount: vms })),
  };
  const clock = new ManualClock(Date.now());
  const rt = await createRuntime({ config: parseConfig(doc), clock, serviceClock: simulatedService(clock), env: {} });
  await rt.storage.ensure();
  await rt.scaleSetApi();
  return { rt, clock, doc, rg };
}

/** One timer pass of the fleet (as the timer runs it, four pools at once), with what it cost. */
async function measurePass(world: BenchWorld, fleet: Fleet, scaleSets: number, label: string, profile?: string): Promise<Measured> {
  const start = await world.sim.request({});
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const pass = () => runPass(fleet.rt, { log: silentLog, budgetMs: Infinity, concurrency: 4 });
  const report = await (profile ? profiled(profile, pass) : pass());
  const wallMs = performance.now() - wall0;
  const cpu = cpuUs(process.cpuUsage(cpu0));
  if (report.errors > 0) throw new Error(`pool bench ${label}: ${report.errors} pool(s) failed: ${JSON.stringify(report.outcomes.find((o) => o.status === 'failed'))}`);
  const end = await world.sim.request({});
  if (process.env.DROVER_BENCH_POOL_BREAKDOWN) console.error(`${label}: ${breakdown(start, end, scaleSets)}`);
  return { ...perScaleSet(start, end, scaleSets), listings: end.counts.listVms - start.counts.listVms, cpu, wallMs };
}

function perScaleSet(start: SimReply, end: SimReply, scaleSets: number): Pick<Measured, 'requests' | 'reads' | 'arm'> {
  const reads = Object.entries(end.byKind).filter(([k]) => k.startsWith('GET ')).reduce((sum, [k, v]) => sum + v - (start.byKind[k] ?? 0), 0);
  return { requests: (end.tableRequests - start.tableRequests) / scaleSets, reads: reads / scaleSets, arm: (end.counts.requests - start.counts.requests) / scaleSets };
}

function breakdown(start: SimReply, end: SimReply, scaleSets: number): string {
  const table = Object.entries(end.byKind).filter(([k, v]) => v !== (start.byKind[k] ?? 0)).map(([k, v]) => `${k}: ${((v - (start.byKind[k] ?? 0)) / scaleSets).toFixed(2)}`);
  const arm = Object.entries(end.counts).filter(([k, v]) => v !== start.counts[k]).map(([k, v]) => `${k}: ${((v - start.counts[k]!) / scaleSets).toFixed(2)}`);
  return `${table.join(', ')}\n  ARM: ${arm.join(', ')}`;
}

/** Each pool reconciled alone, one after another: the passes of warm pools and of pools whose cache listed, apart. */
async function passesByPool(world: BenchWorld, fleet: Fleet): Promise<{ warm: Measured[]; listing: Measured[] }> {
  const warm: Measured[] = [];
  const listing: Measured[] = [];
  for (const pool of fleet.rt.config.pools) {
    const start = await world.sim.request({});
    const cpu0 = process.cpuUsage();
    const outcome = await reconcileObject(fleet.rt, { kind: 'pool', name: pool.name }, { reason: 'bench' }, { log: silentLog });
    const cpu = cpuUs(process.cpuUsage(cpu0));
    if (outcome.status !== 'done') throw new Error(`pool bench: ${pool.name} ${outcome.status}`);
    const end = await world.sim.request({});
    const one = { ...perScaleSet(start, end, 1), listings: end.counts.listVms - start.counts.listVms, cpu, wallMs: 0 };
    (one.listings > 0 ? listing : warm).push(one);
  }
  return { warm, listing };
}

const mean = (values: readonly number[]) => (values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length);
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function runSize(world: BenchWorld, i: number, size: { scaleSets: number; vms: number }, warmCpu: Map<string, number>): Promise<Figure[]> {
  const { scaleSets, vms } = size;
  const label = `${scaleSets}×${vms}`;
  const fleet = await newFleet(world, `${i}`, size);
  const cold = await measurePass(world, fleet, scaleSets, `${label} cold`, `pool-cold-${scaleSets}x${vms}`);
  const peakRss = process.resourceUsage().maxRSS / 1024;
  const coldCpus = [cold.cpu];
  for (let run = 1; run < COLD_RUNS; run++) coldCpus.push((await measurePass(world, await newFleet(world, `${i}r${run}`, size), scaleSets, `${label} cold ${run + 1}`)).cpu);
  fleet.clock.advance(61_000);
  const settling = await measurePass(world, fleet, scaleSets, `${label} settling`);
  const period: Measured[] = [];
  for (let n = 0; n < PERIOD_PASSES; n++) {
    fleet.clock.advance(60_000);
    period.push(await measurePass(world, fleet, scaleSets, `${label} minute ${n + 1}`));
  }
  const busiest = period.reduce((a, b) => (b.listings > a.listings ? b : a));
  fleet.clock.advance(60_000);
  const byPool = await passesByPool(world, fleet);
  const warm = { requests: mean(byPool.warm.map((m) => m.requests)), reads: mean(byPool.warm.map((m) => m.reads)), arm: mean(byPool.warm.map((m) => m.arm)), cpu: mean(byPool.warm.map((m) => m.cpu)) };
  warmCpu.set(`${scaleSets}x${vms}`, warm.cpu);
  const statusRun = await timeStatusCli(world, fleet.doc, true);
  const floor = await parseFloorUs(world.sim.url, world.sim.caPem, SUBSCRIPTION, fleet.rg, 'vmss0');
  const coldPerVm = median(coldCpus) / (scaleSets * vms);
  // The CPU goal is the for fleets of 250 VMs a scale set and more; at 10 a scale set the per-pass requests are all there is.
  const cpuGoal = vms >= 250 ? CPU_RATIO_GOAL : undefined;
  return [
    { label: `${label} cold pass: Table requests per scale set`, value: cold.requests, unit: 'requests', goal: COLD_REQUESTS_GOAL },
    { label: `${label} cold pass: wall time`, value: cold.wallMs / 1000, unit: 's', goal: PASS_BUDGET_S / 2 },
    { label: `${label} settling pass (a minute after the cold one): Table requests per scale set`, value: settling.requests, unit: 'requests' },
    { label: `${label} warm pass (a pool whose cache lists nothing, each alone): Table requests`, value: warm.requests, unit: 'requests', goal: WARM_REQUESTS_GOAL },
    { label: `${label} warm pass: Table reads`, value: warm.reads, unit: 'reads', goal: WARM_READS_GOAL },
    { label: `${label} warm pass: ARM calls`, value: warm.arm, unit: 'calls' },
    { label: `${label} warm pass: Drover CPU per pool`, value: warm.cpu / 1000, unit: 'ms' },
    { label: `${label} a pass whose cache lists (the VMs as they were): Table requests`, value: mean(byPool.listing.map((m) => m.requests)), unit: 'requests' },
    { label: `${label} the timer's passes over the cache's period: Table requests per scale set per pass`, value: mean(period.map((m) => m.requests)), unit: 'requests' },
    { label: `${label} peak RSS after the cold pass`, value: peakRss, unit: 'MiB' },
    { label: `${label} cold pass: Drover CPU per VM (median of ${COLD_RUNS} fleets)`, value: coldPerVm, unit: 'µs' },
    { label: `${label} JSON.parse of one VM (the floor)`, value: floor, unit: 'µs' },
    { label: `${label} cold pass CPU / floor`, value: coldPerVm / floor, unit: '×', ...(cpuGoal ? { goal: cpuGoal } : {}) },
    { label: `${label} caches listing in the busiest of the ${PERIOD_PASSES} passes after the cold one (default jitter)`, value: busiest.listings, unit: `of ${scaleSets}` },
    { label: `${label} that pass: Drover CPU`, value: busiest.cpu / 1e6, unit: 's' },
    { label: `${label} that pass: wall time`, value: busiest.wallMs / 1000, unit: 's', goal: PASS_BUDGET_S / 2 },
    { label: `${label} drover status --json (fresh process): wall time`, value: statusRun.wallMs / 1000, unit: 's', goal: STATUS_GOAL_S },
    { label: `${label} drover status --json: Table requests per scale set`, value: statusRun.requests / scaleSets, unit: 'requests' },
  ];
}

const benchmark: Benchmark = { name: 'pool', description: 'Table requests per scale set, Drover CPU per VM of pool passes and drover status, on the ARM simulator and Azurite', run };
export default benchmark;
