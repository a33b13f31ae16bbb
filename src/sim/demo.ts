/**
 * `drover sim` (what `npm start` runs): Azurite, the ARM and Kubernetes simulators and an
 * activator, an example configuration pointing at them, and the local host running Drover's
 * functions on it. A scripted story plays out: the pool fills up in chunks, a VM fails
 * provisioning and is deleted, load arrives at the web target and goes away again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { stringify } from 'yaml';
import type { CliIO } from '../cli/commands.js';
import { untilSignal } from '../cli/commands.js';
import { renderStatus } from '../cli/render.js';
import { errorMessage, type Log } from '../log.js';
import { createRuntime } from '../runtime/runtime.js';
import { buildStatus } from '../status/status.js';
import { startLocalHost } from '../host/local-host.js';
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
}

export async function runDemo(io: CliIO, options: DemoOptions = {}): Promise<number> {
  const say = (text: string) => io.stdout(`${text}\n`);
  say('Starting the demo: Azurite, the ARM and Kubernetes simulators, an activator…');
  const azurite = await startAzurite();
  const arm = await startArmSim({ subscriptionId: SUBSCRIPTION, provisionDelayMs: 4_000, deleteDelayMs: 3_000 });
  const kube = await startKubernetesSim({ readyDelayMs: 3_000 });
  const activator = await startActivatorSim();
  const dir = path.join(tmpdir(), `drover-sim-${process.pid}`);
  mkdirSync(dir, { recursive: true });
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

  const env = { ...io.env, DROVER_CONFIG: configFile, DROVER_SCHEDULE: '*/5 * * * * *' };
  Object.assign(process.env, { DROVER_CONFIG: configFile, DROVER_SCHEDULE: env.DROVER_SCHEDULE });
  const rt = await createRuntime({ configFile, env });
  const log: Log = {
    info: (...a) => say(`  ${a.join(' ')}`),
    warn: (...a) => say(`  warning: ${a.join(' ')}`),
    error: (...a) => say(`  error: ${a.join(' ')}`),
  };
  const host = await startLocalHost({ rt, log, schedule: env.DROVER_SCHEDULE, runOnStartup: true });
  say(`Drover is running on ${configFile}`);
  say(`In another terminal:  npx drover --config ${configFile} status`);
  say(`                      npx drover --config ${configFile} enqueue --target web --load 35`);
  say('Ctrl+C stops the demo.\n');

  const timers: NodeJS.Timeout[] = [];
  const at = (ms: number, what: string, act: () => Promise<unknown> | void) =>
    timers.push(
      setTimeout(() => {
        say(`\n▶ ${what}`);
        Promise.resolve(act()).catch((err: unknown) => say(`  (demo step failed: ${errorMessage(err)})`));
      }, ms),
    );
  at(1_000, 'the next VM the scale set creates will fail provisioning (out of capacity)', () => workers.failNextCreations(1));
  at(8_000, 'load 25 arrives for web (10 per replica): it should scale to 3', () => rt.queues.reconcile({ kind: 'target', name: 'web', reason: 'demo load', load: 25 }));
  at(40_000, 'load drops to 0: web goes to 1, then to 0 behind the activator', () => rt.queues.reconcile({ kind: 'target', name: 'web', reason: 'demo load', load: 0 }));
  const statusEvery = options.statusEveryMs ?? 15_000;
  const printer = setInterval(() => {
    buildStatus(rt, { decisions: 8 })
      .then((s) => say(`\n${renderStatus(s)}`))
      .catch((err: unknown) => say(`  (status failed: ${errorMessage(err)})`));
  }, statusEvery);

  await (options.forMs !== undefined ? new Promise((r) => setTimeout(r, options.forMs)) : untilSignal());
  say('\nStopping the demo…');
  clearInterval(printer);
  for (const t of timers) clearTimeout(t);
  await host.stop();
  await Promise.allSettled([arm.close(), kube.close(), activator.close(), azurite.stop()]);
  return 0;
}
