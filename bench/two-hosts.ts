/**
 * Two local hosts on one storage account: both run the timer's pass over one fleet at every
 * occurrence (the Functions host runs a timer on one instance; two local hosts, or a host
 * whose singleton lock lapsed, each run it), one right after the other as two hosts' clocks
 * a moment apart would, and at the same moment. Counted per host, over several periods: passes
 * that wrote (took the object's lease), passes that found nothing to write (they take none),
 * passes skipped (the object claimed or held), ARM list calls and Table writes. Each object
 * should be written and listed for at most once per period whichever host gets to it.
 * Counts, not times: on a 2-core machine wall time says nothing about two hosts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { ManualClock } from '../src/clock.js';
import { silentLog } from '../src/log.js';
import { startAzurite } from '../sim/azurite.js';
import { startArmSim, type ArmSim } from '../sim/arm/index.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { createComputeScaleSetApi } from '../src/azure/compute-adapter.js';
import type { ScaleSetApi } from '../src/azure/scale-set-api.js';
import { runPass } from '../src/reconcile/pass.js';
import { DEFAULT_SCHEDULE, nextOccurrence } from '../src/host/schedule.js';
import type { Benchmark, Figure } from './index.js';
import { simulatedService } from '../src/state/service-clock.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-00000000face';
const POOLS = 12;
const VMS = 20;
const PERIODS = 4;

/** What the figures report per host: passes' outcomes, ARM list calls and Table writes. */
interface HostCounts {
  /** Passes that wrote (the object's lease taken). */
  reconciles: number;
  /** Passes that found nothing to write. */
  looked: number;
  skipped: number;
  armLists: number;
  tableWrites: number;
}

const zero = (): HostCounts => ({ reconciles: 0, looked: 0, skipped: 0, armLists: 0, tableWrites: 0 });

/** The real adapter, its list calls counted. */
function countingApi(api: ScaleSetApi, counts: HostCounts): ScaleSetApi {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (prop === 'listVms') counts.armLists++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Counts every Table write the runtime sends (any request but a GET, batches included). */
function countTableRequests(rt: Runtime, counts: HostCounts): void {
  for (const name of Object.keys(rt.storage.names.tables) as (keyof typeof rt.storage.names.tables)[]) {
    rt.storage.table(name).pipeline.addPolicy({
      name: 'bench-count',
      sendRequest(request, next) {
        if (request.method !== 'GET') counts.tableWrites++;
        return next(request);
      },
    });
  }
}

interface Fleet {
  sim: ArmSim;
  connection: string;
  caFile: string;
  /** The benchmark's folder (configs, the simulator's CA), removed when it ends. */
  dir: string;
}

async function hosts(fleet: Fleet, count: number, clock: ManualClock, group: string): Promise<{ rt: Runtime; counts: HostCounts }[]> {
  const dir = path.join(fleet.dir, group);
  mkdirSync(dir);
  const pools = Array.from({ length: POOLS }, (_, i) => {
    fleet.sim.addScaleSet({ resourceGroup: group, name: `vmss-${i}`, capacity: VMS });
    return { name: `pool-${i}`, scaleSet: { resourceGroup: group, name: `vmss-${i}` }, maxCount: VMS, creationRate: '0s,1', reconcileRate: '0s,1', instanceCache: { ttl: '2m' } };
  });
  const azure = { subscriptionId: SUBSCRIPTION, credential: 'dev' as const, resourceManagerEndpoint: fleet.sim.url, caFile: fleet.caFile };
  const file = path.join(dir, 'drover.config.yaml');
  writeFileSync(file, stringify({ storage: { connection: fleet.connection, prefix: `b${randomBytes(4).toString('hex')}` }, azure, pools }));
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const counts = zero();
      const api = countingApi(await createComputeScaleSetApi(azure), counts);
      const rt = await createRuntime({ configFile: file, clock, serviceClock: simulatedService(clock), adapters: { scaleSetApi: api } });
      await rt.storage.ensure();
      countTableRequests(rt, counts);
      return { rt: { ...rt, holder: `host-${i}` }, counts };
    }),
  );
}

/** Runs PERIODS timer occurrences; `together` starts the hosts' passes at once, else one after the other. */
async function periods(group: { rt: Runtime; counts: HostCounts }[], clock: ManualClock, together: boolean): Promise<void> {
  const pass = async ({ rt, counts }: { rt: Runtime; counts: HostCounts }, occurrence: number) => {
    const report = await runPass(rt, { log: silentLog, reason: 'timer', occurrence, budgetMs: Infinity });
    counts.reconciles += report.outcomes.filter((o) => (o.status === 'done' && o.wrote) || o.status === 'failed').length;
    counts.looked += report.outcomes.filter((o) => o.status === 'done' && !o.wrote).length;
    counts.skipped += report.outcomes.filter((o) => o.status === 'busy' || o.status === 'claimed').length;
  };
  // The first period builds caches and inventories; count the steady periods after it.
  for (let period = 0; period <= PERIODS; period++) {
    const occurrence = nextOccurrence(DEFAULT_SCHEDULE, clock.now());
    clock.set(occurrence);
    if (period === 1) for (const host of group) Object.assign(host.counts, zero());
    if (together) await Promise.all(group.map((host) => pass(host, occurrence)));
    else for (const host of group) await pass(host, occurrence);
  }
}

const perObjectPeriod = (n: number) => n / POOLS / PERIODS;

async function run(): Promise<Figure[]> {
  const azurite = await startAzurite();
  const clock = new ManualClock(Date.UTC(2026, 11, 1, 10, 0, 30));
  const sim = await startArmSim({ subscriptionId: SUBSCRIPTION, clock, pageSize: 1000 });
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-two-hosts-'));
  const caFile = path.join(dir, 'ca.pem');
  await sim.writeCaFile(caFile);
  const fleet = { sim, connection: azurite.connectionString, caFile, dir };
  try {
    const one = await hosts(fleet, 1, clock, 'rg-one');
    await periods(one, clock, false);
    const staggered = await hosts(fleet, 2, clock, 'rg-staggered');
    await periods(staggered, clock, false);
    const together = await hosts(fleet, 2, clock, 'rg-together');
    await periods(together, clock, true);
    const figures: Figure[] = [];
    const describe = (label: string, group: { counts: HostCounts }[]) => {
      const total = group.reduce((sum, h) => ({
        reconciles: sum.reconciles + h.counts.reconciles,
        looked: sum.looked + h.counts.looked,
        armLists: sum.armLists + h.counts.armLists,
        tableWrites: sum.tableWrites + h.counts.tableWrites,
      }), { reconciles: 0, looked: 0, armLists: 0, tableWrites: 0 });
      figures.push(
        { label: `${label}: passes that wrote, per object per period`, value: perObjectPeriod(total.reconciles), unit: '' },
        { label: `${label}: passes that found nothing to write, per object per period`, value: perObjectPeriod(total.looked), unit: '' },
        { label: `${label}: ARM list calls per object per period`, value: perObjectPeriod(total.armLists), unit: '' },
        { label: `${label}: Table writes per object per period`, value: perObjectPeriod(total.tableWrites), unit: '' },
      );
      if (group.length > 1) {
        group.forEach((h, i) => figures.push({ label: `${label}: host ${i + 1} wrote / found nothing to write / skipped`, value: h.counts.reconciles, unit: `/ ${h.counts.looked} / ${h.counts.skipped}` }));
      }
    };
    describe('one host', one);
    describe('two hosts, one after the other', staggered);
    describe('two hosts at once', together);
    return figures;
  } finally {
    await sim.close();
    await azurite.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const benchmark: Benchmark = { name: 'two-hosts', description: `${POOLS} pools × ${VMS} VMs, ${PERIODS} timer periods, counts per host`, run };
export default benchmark;
