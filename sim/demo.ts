/**
 * `drover sim` (what `npm start` runs): Azurite, the ARM and Kubernetes simulators and an
 * activator, an example configuration pointing at them, and the local host running Drover's
 * functions on it. A scripted story plays out: the pool fills up in chunks, a VM fails
 * provisioning and is deleted, load arrives at the web target and goes away again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { stringify } from 'yaml';
import { untilSignal, type CliIO } from '../src/cli/io.js';
import { renderStatus } from '../src/cli/render.js';
import { errorMessage, type Log } from '../src/log.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { buildStatus } from '../src/status/status.js';
import { startLocalHost } from '../src/host/local-host.js';
import { startAzurite } from './azurite.js';
import { startArmSim } from './arm/index.js';
import { startKubernetesSim } from './kubernetes/server.js';
import { startActivatorSim } from './activator/server.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-00000000d0e0';

export interface DemoOptions {
  /** Stop by itself after this many ms (otherwise on Ctrl+C). */
  forMs?: number;
  /** Print the status view every this many ms. */
  statusEveryMs?: number;
  /** Port of the status page on 127.0.0.1 (default 7071, or any free one when taken). */
  statusPort?: number;
}

export async function runDemo(io: CliIO, options: DemoOptions = {}): Promise<number> {
  // Whatever started is stopped again, in reverse order, even when a later step fails.
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

async function demo(io: CliIO, options: DemoOptions, started: Started): Promise<number> {
  const say = (text: string) => io.stdout(`${text}\n`);
  say('Starting the demo: Azurite, the ARM and Kubernetes simulators, an activator…');
  const azurite = started(await startAzurite(), (a) => a.stop());
  const arm = started(await startArmSim({ subscriptionId: SUBSCRIPTION, provisionDelayMs: 4_000, deleteDelayMs: 3_000 }), (a) => a.close());
  const kube = started(await startKubernetesSim({ readyDelayMs: 3_000 }), (k) => k.close());
  const activator = started(await startActivatorSim(), (a) => a.close());
  const dir = started(mkdtempSync(path.join(tmpdir(), 'drover-sim-')), (d) => rmSync(d, { recursive: true, force: true }));
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
          instanceCache: { ttl: '30s', jitter: '5s' },
          enableFastDeleteOnFailedProvisioning: true,
          enableDetailedCSEMessage: true,
        },
      ],
      targets: [
        {
          name: 'web',
          scaleTargetRef: web,
          minScale: 0,
          maxScale: 10,
          scaleToZero: { enabled: true, stableWindow: '20s', gracePeriod: '10s' },
          activator: { probeUrl: activator.probeUrl, probePeriod: '1s', probeTimeout: '30s' },
          load: { source: 'push', targetPerReplica: 10 },
        },
      ],
    }),
  );

  const schedule = '*/5 * * * * *';
  const rt = await createRuntime({ configFile, env: io.env });
  const log: Log = {
    info: (...a) => say(`  ${a.join(' ')}`),
    warn: (...a) => say(`  warning: ${a.join(' ')}`),
    error: (...a) => say(`  error: ${a.join(' ')}`),
  };
  const host = started(await startLocalHost({ rt, log, schedule, runOnStartup: true, ...(options.statusPort === undefined ? {} : { statusPort: options.statusPort }) }), (h) => h.stop());
  say(`Drover is running on ${configFile}`);
  if (host.statusUrl) say(`Status page:          ${host.statusUrl}`);
  say(`In another terminal:  npx drover --config ${configFile} status`);
  say(`                      npx drover --config ${configFile} enqueue --target web --load 35`);
  say('Ctrl+C stops the demo.\n');

  const at = (ms: number, what: string, act: () => Promise<unknown> | void) =>
    started(
      setTimeout(() => {
        say(`\n▶ ${what}`);
        Promise.resolve(act()).catch((err: unknown) => say(`  (demo step failed: ${errorMessage(err)})`));
      }, ms),
      clearTimeout,
    );
  at(1_000, 'the next VM the scale set creates will fail provisioning (out of capacity)', () => workers.failNextCreations(1));
  at(8_000, 'load 25 arrives for web (10 per replica): it should scale to 3', () => rt.queues.reconcile({ kind: 'target', name: 'web', reason: 'demo load', load: 25 }));
  at(40_000, 'load drops to 0: web goes to 1, then to 0 behind the activator', () => rt.queues.reconcile({ kind: 'target', name: 'web', reason: 'demo load', load: 0 }));
  const statusEvery = options.statusEveryMs ?? 15_000;
  started(setInterval(() => {
    buildStatus(rt, { decisions: 8 })
      .then((s) => say(`\n${renderStatus(s, rt.clock.now())}`))
      .catch((err: unknown) => say(`  (status failed: ${errorMessage(err)})`));
  }, statusEvery), clearInterval);

  await (options.forMs !== undefined ? new Promise((r) => setTimeout(r, options.forMs)) : untilSignal());
  say('\nStopping the demo…');
  return 0;
}
