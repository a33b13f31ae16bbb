/**
 * A fleet's Table requests per hour, measured: 100 pools (10 VMs each) and 50 targets, run on an
 * injected clock against the ARM and Kubernetes simulators and Azurite, every Table request
 * counted by the proxy in front of Azurite, over a window of virtual minutes scaled to an hour.
 * - timer only: the timer's handler once a virtual minute (DROVER_SCHEDULE's default), the
 *   targets `push` ones (nothing polls them);
 * - at the default poll interval: the same with `http` targets (pollInterval 15 s), whose
 *   delayed reconcile messages are delivered through the reconcile queue's own handler when
 *   they fall due on the virtual clock (a queue in memory: the delay is Azure's visibility
 *   timeout, which Azurite keeps in real time). The pending markers are the real ones, in Table.
 * And a steady target pass alone (each target reconciled once more after the window).
 * Warm-up minutes (adoption, the settling pass) are run and not counted. The window is 5 minutes
 * by default (DROVER_BENCH_FLEET_MINUTES), the instance cache's period: each cache lists once in it.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { QueueClient } from '@azure/storage-queue';
import type { Timer } from '@azure/functions';
import { ManualClock } from '../src/clock.js';
import { parseConfig } from '../src/config/load.js';
import { registrations, type QueueRegistration, type TimerRegistration } from '../src/handlers/registrations.js';
import { newInvocationContext } from '../src/host/invocation.js';
import { DEFAULT_SCHEDULE, nextOccurrence } from '../src/host/schedule.js';
import { silentLog } from '../src/log.js';
import { createQueueSender } from '../src/queue/sender.js';
import { PendingStore } from '../src/queue/pending-store.js';
import { reconcileObject } from '../src/reconcile/object.js';
import { runPass, type PassReport } from '../src/reconcile/pass.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { simulatedService } from '../src/state/service-clock.js';
import { startKubernetesSim } from '../sim/kubernetes/server.js';
import { mapBounded } from '../src/status/bounded.js';
import { quick, startBenchWorld, type BenchWorld } from './bench-world.js';
import type { Benchmark, Figure } from './index.js';

const FLEET = { pools: 100, vms: 10, targets: 50 };
const HOUR_GOAL = 40_000;
const TARGET_PASS_GOAL = 6;
const WARMUP_MINUTES = 2;
const MINUTE = 60_000;
/** Messages handled at once, as host.json's queue batchSize has it. */
const QUEUE_BATCH = 8;

/** The reconcile queue on the virtual clock: a message is delivered when its visibility delay has passed. */
class VirtualQueue {
  private messages: { text: string; visibleAt: number }[] = [];
  constructor(private readonly clock: ManualClock) {}

  client(name: string): QueueClient {
    const sendMessage = async (text: string, options: { visibilityTimeout?: number } = {}) => {
      this.messages.push({ text, visibleAt: this.clock.now() + (options.visibilityTimeout ?? 0) * 1000 });
      return {};
    };
    return { name, sendMessage } as unknown as QueueClient;
  }

  nextDue(): number {
    return this.messages.reduce((min, m) => Math.min(min, m.visibleAt), Infinity);
  }

  takeDue(now: number): string[] {
    const due = this.messages.filter((m) => m.visibleAt <= now);
    this.messages = this.messages.filter((m) => m.visibleAt > now);
    return due.map((m) => m.text);
  }
}

/**
 * Keeps a handler that sleeps on the virtual clock (a rate limiter's wait) from waiting for ever:
 * a sleeper left waiting for 200 ms of real time moves the clock on a second. Counted, since
 * each such second is time the real host would have spent waiting.
 */
function unstick(clock: ManualClock): { stop(): number } {
  let nudges = 0;
  let waitingSince: number | undefined;
  const timer = setInterval(() => {
    if (clock.waiting === 0) return void (waitingSince = undefined);
    waitingSince ??= performance.now();
    if (performance.now() - waitingSince < 200) return;
    clock.advance(1_000);
    nudges++;
    waitingSince = undefined;
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return nudges;
    },
  };
}

interface Fleet {
  rt: Runtime;
  clock: ManualClock;
  queue: VirtualQueue | undefined;
}

async function startFleet(world: BenchWorld, variant: 'push' | 'http', kubeconfig: string, loadUrl: string): Promise<Fleet> {
  const clock = new ManualClock(Math.ceil(Date.now() / MINUTE) * MINUTE + 500);
  const rg = `rg-fleet-${variant}`;
  for (let n = 0; n < FLEET.pools; n++) await world.sim.request({ addScaleSet: { resourceGroup: rg, name: `vmss${n}`, capacity: FLEET.vms } });
  const load = (name: string) => (variant === 'push' ? { source: 'push', targetPerReplica: 10 } : { source: 'http', url: `${loadUrl}/${name}`, targetPerReplica: 10 });
  const config = parseConfig({
    storage: { connection: world.connection, prefix: `bfleet${variant}` },
    azure: world.azure,
    kubernetes: { kubeconfig },
    pools: Array.from({ length: FLEET.pools }, (_, n) => ({ name: `pool${n}`, scaleSet: { resourceGroup: rg, name: `vmss${n}` }, maxCount: FLEET.vms })),
    targets: Array.from({ length: FLEET.targets }, (_, n) => ({
      name: `${variant}${n}`,
      minScale: 1,
      scaleToZero: { enabled: false },
      scaleTargetRef: { kind: 'Deployment', name: `${variant}${n}` },
      load: load(`${variant}${n}`),
    })),
  });
  const serviceClock = simulatedService(clock);
  const base = await createRuntime({ config, clock, serviceClock, env: {} });
  await base.storage.ensure();
  if (variant === 'push') return { rt: base, clock, queue: undefined };
  const queue = new VirtualQueue(clock);
  const queues = createQueueSender({ reconcileQueue: queue.client('reconcile'), probeQueue: queue.client('probe'), pending: new PendingStore(base.table('leases'), clock, serviceClock), clock });
  return { rt: { ...base, queues }, clock, queue };
}

/** A handler's context whose log goes nowhere (DROVER_BENCH_FLEET_DEBUG=1: warnings and errors to stderr). */
const context = (name: string) =>
  newInvocationContext(name, {}, (level, ...args) => {
    if (process.env.DROVER_BENCH_FLEET_DEBUG && (level === 'warning' || level === 'error')) console.error(`${name} ${level}:`, ...args);
  });

/**
 * Runs the timer once a virtual minute, and the queue's messages as they fall due, for `minutes`.
 * Returns how many objects the timer's budget cut short or handed on (none on a machine that keeps up).
 */
async function runMinutes(fleet: Fleet, minutes: number): Promise<number> {
  const timer = registrations.find((r): r is TimerRegistration => r.trigger === 'timer')!;
  const reconcile = registrations.find((r): r is QueueRegistration => r.trigger === 'storageQueue' && r.queue === 'reconcile')!;
  const { rt, clock, queue } = fleet;
  let nextTimer = nextOccurrence(DEFAULT_SCHEDULE, clock.now());
  const end = nextTimer + minutes * MINUTE;
  let cutShort = 0;
  let lastQueueAt = -Infinity;
  const sleepers = unstick(clock);
  for (;;) {
    let at = Math.min(nextTimer, queue?.nextDue() ?? Infinity);
    if (at >= end) {
      const nudges = sleepers.stop();
      if (process.env.DROVER_BENCH_FLEET_DEBUG) console.error(`${minutes} minute(s): ${nudges} second(s) moved on for a sleeper`);
      return cutShort;
    }
    // A message put back for the same instant (its object busy) comes a second later, as a real queue's would.
    if (at !== nextTimer && at <= lastQueueAt) at = lastQueueAt + 1_000;
    if (at > clock.now()) clock.set(at);
    if (at === nextTimer) {
      nextTimer = nextOccurrence(DEFAULT_SCHEDULE, clock.now());
      const t: Timer = { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: new Date(nextTimer).toISOString(), lastUpdated: '' } };
      const started = performance.now();
      const report = (await timer.handler(rt, t, context(timer.name))) as PassReport;
      cutShort += report.deferred.length + report.outcomes.filter((o) => o.status === 'aborted').length;
      if (process.env.DROVER_BENCH_FLEET_DEBUG) console.error(`${new Date(clock.now()).toISOString()}: timer pass in ${Math.round(performance.now() - started)} ms`);
      continue;
    }
    lastQueueAt = clock.now();
    const due = queue!.takeDue(clock.now());
    if (process.env.DROVER_BENCH_FLEET_DEBUG) console.error(`${new Date(clock.now()).toISOString()}: ${due.length} message(s) due`);
    // As the host takes them: a batch at a time (host.json's batchSize), each message on its own.
    await mapBounded(due, QUEUE_BATCH, (text) => reconcile.handler(rt, text, context(reconcile.name)).catch(() => undefined));
  }
}

/** Table requests per hour over `minutes`, after the adoption (a pass without a budget) and warm-up minutes. */
async function perHour(world: BenchWorld, fleet: Fleet, minutes: number): Promise<{ perHour: number; cutShort: number }> {
  // On a loaded machine a call may time out: the pass is run again until every object is adopted.
  for (let attempt = 1; ; attempt++) {
    const adopted = await runPass(fleet.rt, { log: silentLog, budgetMs: Infinity, reason: 'bench: adopt the fleet' });
    if (adopted.errors === 0) break;
    if (attempt === 3) throw new Error(`fleet bench: not adopted: ${JSON.stringify(adopted.outcomes.find((o) => o.status === 'failed'))}`);
  }
  // A pool's reconcile rate (1 a minute) is refilled by its first timer pass.
  fleet.clock.advance(MINUTE);
  await runMinutes(fleet, WARMUP_MINUTES);
  const before = await world.tableRequests();
  const cutShort = await runMinutes(fleet, minutes);
  return { perHour: (((await world.tableRequests()) - before) * 60) / minutes, cutShort };
}

/** Table requests of one more reconcile of each target, on the fleet as the window left it: the mean. */
async function targetPass(world: BenchWorld, fleet: Fleet): Promise<number> {
  const before = await world.tableRequests();
  for (const t of fleet.rt.config.targets) {
    fleet.clock.advance(1_000);
    const outcome = await reconcileObject(fleet.rt, { kind: 'target', name: t.name }, { reason: 'bench' }, { log: silentLog });
    if (outcome.status !== 'done') throw new Error(`fleet bench: target ${t.name} ${outcome.status}`);
  }
  return ((await world.tableRequests()) - before) / fleet.rt.config.targets.length;
}

async function loadServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => res.writeHead(200).end('20'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/load`, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

async function run(): Promise<Figure[]> {
  const minutes = Number(process.env.DROVER_BENCH_FLEET_MINUTES ?? (quick() ? 2 : 5));
  const world = await startBenchWorld('fleet');
  const kube = await startKubernetesSim({ readyDelayMs: 0 });
  const source = await loadServer();
  const kubeconfig = path.join(world.dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, kube.kubeconfigYaml());
  try {
    for (const variant of ['push', 'http']) for (let n = 0; n < FLEET.targets; n++) kube.add({ kind: 'Deployment', namespace: 'default', name: `${variant}${n}` }, { replicas: 2 });
    const timerOnly = await startFleet(world, 'push', kubeconfig, source.url);
    const timerHour = await perHour(world, timerOnly, minutes);
    const steadyTarget = await targetPass(world, timerOnly);
    const polled = await startFleet(world, 'http', kubeconfig, source.url);
    const polledHour = await perHour(world, polled, minutes);
    const fleet = `${FLEET.pools} pools (${FLEET.vms} VMs each) + ${FLEET.targets} targets`;
    return [
      { label: `${fleet}, timer only (push targets): Table requests per hour, ${minutes} virtual minutes measured`, value: Math.round(timerHour.perHour), unit: 'requests', goal: HOUR_GOAL },
      { label: `${fleet}, http targets at the default poll interval (15 s): Table requests per hour`, value: Math.round(polledHour.perHour), unit: 'requests' },
      { label: 'objects the timer pass\'s budget cut short in the measured minutes, both runs (0 on a machine that keeps up)', value: timerHour.cutShort + polledHour.cutShort, unit: 'objects' },
      { label: 'a steady target pass (push source, after the window): Table requests', value: steadyTarget, unit: 'requests', goal: TARGET_PASS_GOAL },
    ];
  } finally {
    await source.close();
    await kube.close();
    await world.close();
  }
}

const benchmark: Benchmark = {
  name: 'fleet',
  description: 'Table requests per hour of 100 pools and 50 targets, timer only and polled, on an injected clock through a counting proxy',
  run,
};
export default benchmark;
