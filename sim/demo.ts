/**
 * `drover sim` (what `npm start` runs): Azurite, the ARM and Kubernetes simulators and an
 * activator, an example configuration pointing at them, and the local host running Drover's
 * functions on it. A scripted story plays out (`demoSteps`): load for the target `jobs` sizes the
 * pool `workers`, which grows in chunks, shrinks by choosing its VMs (parking two in its warm
 * buffer, sparing one protected from scale-in), wakes a parked VM on the next rise and backs off
 * after a VM fails provisioning; load arrives at the web target and goes
 * away again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { stringify } from 'yaml';
import { aborted, untilSignal, type CliIO } from '../src/cli/io.js';
import { errorMessage, type Log } from '../src/log.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { buildStatus, type Status } from '../src/status/status.js';
import { startLocalHost } from '../src/host/local-host.js';
import { startAzurite } from './azurite.js';
import { startArmSim } from './arm/index.js';
import { startKubernetesSim } from './kubernetes/server.js';
import { startActivatorSim } from './activator/server.js';
import { storyLines } from './story.js';
import { demoSteps } from './steps.js';
import { pushLoad } from '../src/queue/push.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-00000000d0e0';

export interface DemoOptions {
  /** Stop by itself after this many ms (otherwise when `signal` aborts). */
  forMs?: number;
  /** Stops the demo; without one, the first SIGINT or SIGTERM does. */
  signal?: AbortSignal;
  /** Every log line (each tick's passes and messages), not only the story. */
  verbose?: boolean;
  /** The `drover` command line to print for a second terminal (an absolute `node …/cli.js`). */
  cliCommand?: string;
  /** How often the story looks for changes. */
  storyEveryMs?: number;
  /** Record every exchange with the ARM and Kubernetes simulators here (sim/recorder.ts). */
  recordDir?: string;
  /** Port of the status page on 127.0.0.1 (default 7071, or any free one when taken). */
  statusPort?: number;
}

/** How long the local host may take to finish an invocation in flight before the rest stops anyway. */
const HOST_STOP_MS = 600;

export async function runDemo(io: CliIO, options: DemoOptions = {}): Promise<number> {
  // Whatever started is stopped again, in reverse order (the host first, Azurite last), even
  // when a later step fails.
  const cleanups: (() => Promise<unknown> | void)[] = [];
  const started = <T>(thing: T, stop: (t: T) => Promise<unknown> | void): T => {
    cleanups.unshift(() => stop(thing));
    return thing;
  };
  try {
    return await demo(io, options, started);
  } finally {
    for (const cleanup of cleanups) await Promise.resolve(cleanup()).catch(() => undefined);
  }
}

type Started = <T>(thing: T, stop: (t: T) => Promise<unknown> | void) => T;

/** Resolves when `promise` settles or `ms` pass, whichever is first. */
function bounded(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]).finally(() => clearTimeout(timer));
}

async function demo(io: CliIO, options: DemoOptions, started: Started): Promise<number> {
  // Once stopping, what the host still logs is not news.
  let stopping = false;
  const say = (text: string) => {
    if (!stopping) io.stdout(`${text}\n`);
  };
  say('Starting the demo: Azurite, the ARM and Kubernetes simulators, an activator…');
  // A stop asked for while starting up is honoured between steps, not after the whole start.
  const stopped = () => options.signal?.aborted === true;
  const azurite = started(await startAzurite(), (a) => a.stop());
  if (stopped()) return 0;
  const arm = started(await startArmSim({ subscriptionId: SUBSCRIPTION, provisionDelayMs: 4_000, deleteDelayMs: 3_000, recordDir: options.recordDir }), (a) => a.close());
  const kube = started(await startKubernetesSim({ readyDelayMs: 3_000, recordDir: options.recordDir }), (k) => k.close());
  const activator = started(await startActivatorSim(), (a) => a.close());
  if (stopped()) return 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-sim-'));
  // Removed when the demo stops, and also when the process is made to exit before that.
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  started(dir, () => {
    process.off('exit', removeDir);
    removeDir();
  });
  const caFile = path.join(dir, 'arm-ca.pem');
  await arm.writeCaFile(caFile);
  const kubeconfig = path.join(dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, kube.kubeconfigYaml());

  const workers = arm.addScaleSet({ resourceGroup: 'rg-demo', name: 'vmss-workers', capacity: 2 });
  const web = { kind: 'Deployment' as const, namespace: 'default', name: 'web' };
  kube.add(web, { replicas: 1, readyReplicas: 1 });

  const configFile = path.join(dir, 'drover.config.yaml');
  writeFileSync(
    configFile,
    stringify({
      storage: { connection: azurite.connectionString, prefix: 'drover' },
      azure: { subscriptionId: SUBSCRIPTION, credential: 'dev', resourceManagerEndpoint: arm.url, caFile },
      kubernetes: { kubeconfig },
      pools: [
        {
          name: 'workers',
          scaleSet: { resourceGroup: 'rg-demo', name: 'vmss-workers' },
          maxCount: 6,
          chunkSize: 2,
          reconcileRate: '5s,1',
          creationRate: '1s,2',
          scaleIn: { policy: 'newest' },
          // A scale-in parks up to 2 VMs (deallocated), and a rise starts them before creating any.
          warm: { max: 2 },
          // Short, so that VMs becoming ready (and going) are seen within seconds.
          instanceCache: { ttl: '10s', jitter: '2s' },
          enableFastDeleteOnFailedProvisioning: true,
          enableDetailedCSEMessage: true,
        },
      ],
      targets: [
        {
          // The target decides how many VMs, the pool which: one VM per 10 jobs.
          name: 'jobs',
          scaleTargetRef: { kind: 'Pool', name: 'workers' },
          minScale: 1,
          maxScale: 6,
          // The demo tells a day in a minute: Knative's rules, whose windows are seconds, not the
          // default policy's, whose evidence before a fall is 8 or 16 real start-up delays.
          policy: 'knative',
          // The window the load is averaged over (and held before going lower): short, for a demo.
          scaleToZero: { stableWindow: '10s' },
          load: { source: 'push', targetPerReplica: 10 },
        },
        {
          name: 'web',
          scaleTargetRef: web,
          minScale: 0,
          maxScale: 10,
          policy: 'knative',
          scaleToZero: { enabled: true, stableWindow: '20s', gracePeriod: '10s' },
          activator: { probeUrl: activator.probeUrl, probePeriod: '1s', probeTimeout: '30s' },
          load: { source: 'push', targetPerReplica: 10 },
        },
      ],
    }),
  );

  const schedule = '*/5 * * * * *';
  const rt = await createRuntime({ configFile, env: io.env });
  if (stopped()) return 0;
  const time = () => new Date(rt.clock.now()).toISOString().slice(11, 19);
  const verbose = options.verbose === true;
  const log: Log = {
    // The --verbose lines carry their time, as the lines of changes do.
    debug: (...a) => verbose && say(`${time()}    ${a.join(' ')}`),
    info: (...a) => verbose && say(`${time()}    ${a.join(' ')}`),
    warn: (...a) => verbose && say(`${time()}    warning: ${a.join(' ')}`),
    error: (...a) => say(`${time()}    error: ${a.join(' ')}`),
  };
  // The story starts from the state before the first pass, so that the first pass is told too.
  await rt.storage.ensure();
  let last: Status | undefined = await buildStatus(rt, { decisions: 1 });
  const host = await startLocalHost({ rt, log, schedule, runOnStartup: true, ...(options.statusPort === undefined ? {} : { statusPort: options.statusPort }) });
  started(host, async (h) => {
    // The host goes first, while storage still answers: an invocation in flight finishes (or
    // is cut short by the runtime's shutdown signal) instead of retrying against a closed port.
    // What it logs meanwhile (a pass aborted and handed on) is no news to whoever stopped it.
    stopping = true;
    await bounded(h.stop(), HOST_STOP_MS);
  });
  const cli = options.cliCommand ?? 'drover';
  say(`Drover is running on ${configFile}`);
  if (host.statusUrl) say(`Status page:          ${host.statusUrl}`);
  say(`In another terminal:  ${cli} --config ${configFile} status`);
  say(`                      ${cli} --config ${configFile} enqueue --target jobs --load 35`);
  say(`                      ${cli} --config ${configFile} enqueue --target web --load 35`);
  say(`Ctrl+C stops the demo.${verbose ? '' : ' Only changes are shown; --verbose shows every pass.'}\n`);

  const told = (what: string, act: () => Promise<unknown> | void) => {
    say(`\n▶ ${what}`);
    Promise.resolve(act()).catch((err: unknown) => say(`  (demo step failed: ${errorMessage(err)})`));
  };
  const steps = demoSteps({
    protect: (vm) => void workers.updateVm(vm, { protectFromScaleIn: true }),
    failNextCreation: () => workers.failNextCreations(1),
    load: (target, load) => pushLoad({ pushes: rt.stores.pushes, queues: rt.queues }, target, load, 'demo load'),
  });
  const startedAt = Date.now();
  for (const step of steps) if (step.kind === 'at') started(setTimeout(() => told(step.what, step.act), step.ms), clearTimeout);
  // A step that waits for the story runs once what it waits for is seen, in order, each after the one before.
  const waiting = steps.filter((s) => s.kind === 'when');
  const nextWhen = (s: Status) => {
    const step = waiting[0];
    if (!step || Date.now() - startedAt < step.notBeforeMs || !step.seen(s)) return;
    waiting.shift();
    told(step.what, step.act);
  };

  for (const line of storyLines(undefined, last, rt.clock.now())) say(`${time()}  ${line}`);
  let reading = false;
  const look = () => {
    if (reading) return;
    reading = true;
    buildStatus(rt, { decisions: 1 })
      .then((s) => {
        for (const line of storyLines(last, s, rt.clock.now())) say(`${time()}  ${line}`);
        last = s;
        nextWhen(s);
      })
      .catch((err: unknown) => say(`  (status failed: ${errorMessage(err)})`))
      .finally(() => (reading = false));
  };
  started(setInterval(look, options.storyEveryMs ?? 1_000), clearInterval);

  const waits: Promise<unknown>[] = [];
  if (options.signal) waits.push(aborted(options.signal));
  if (options.forMs !== undefined) waits.push(new Promise((r) => started(setTimeout(r, options.forMs), clearTimeout)));
  await Promise.race(waits.length ? waits : [untilSignal()]);
  say('\nStopping the demo…');
  return 0;
}
