// A Kubernetes target driven end to end: Azurite, the Kubernetes and activator simulators, a
// config file, the runtime the handlers are given, and optionally the local host polling the real
// queues (fast polling from a host.json of its own, a timer that never fires unless asked).
import { writeFileSync } from 'node:fs';
import { afterEach } from 'vitest';
import type http from 'node:http';
import path from 'node:path';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { startLocalHost, type LocalHost } from '../../src/host/local-host.js';
import type { Clock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import type { KubernetesScaleTargetRef } from '../../src/kubernetes/scale-target-ref.js';
import { startActivatorSim, type ActivatorSim } from '../../sim/activator/server.js';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';
import { azuriteStorage, tempDir, writeConfig } from '../support/config.js';
import { simulatedService } from '../../src/state/service-clock.js';

export const WEB: KubernetesScaleTargetRef = { kind: 'Deployment', namespace: 'default', name: 'web' };

/** Short durations: a stable window of 1.5 s, a grace period of 1 s, probes every 200 ms. */
export function webTarget(activator: ActivatorSim, overrides: Record<string, unknown> = {}) {
  return {
    name: 'web',
    scaleTargetRef: { kind: 'Deployment', name: 'web' },
    // These tests time Knative's windows and steps: the seed's policy.
    policy: 'knative',
    scaleToZero: { stableWindow: '1500ms', gracePeriod: '1s' },
    activator: { probeUrl: activator.probeUrl, probePeriod: '200ms', probeTimeout: '20s' },
    load: { source: 'push', targetPerReplica: 10 },
    ...overrides,
  };
}

export interface TargetWorld {
  kube: KubernetesSim;
  activator: ActivatorSim;
  rt: Runtime;
  /** Starts the local host; `schedule` defaults to once a day, twelve hours from now: no timer ticks. */
  startHost(schedule?: string): Promise<LocalHost>;
  /** Spec replicas seen at each change, with when (polled every 25 ms until stopped). */
  timeline(): { values: { at: number; replicas: number | undefined }[]; stop(): void };
  close(): Promise<void>;
}

export async function startTargetWorld(
  targets: (activator: ActivatorSim) => Record<string, unknown>[],
  /** `connection`: an Azurite of the test's own instead of the suite's (a flood must not slow every other file). */
  options: { readyDelayMs?: number; clock?: Clock; connection?: string } = {},
): Promise<TargetWorld> {
  const [kube, activator] = await Promise.all([startKubernetesSim({ readyDelayMs: options.readyDelayMs ?? 0 }), startActivatorSim()]);
  const dir = tempDir();
  const kubeconfig = path.join(dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, kube.kubeconfigYaml());
  const hostJsonFile = path.join(dir, 'host.json');
  writeFileSync(hostJsonFile, JSON.stringify({ version: '2.0', extensions: { queues: { maxPollingInterval: '00:00:00.100', visibilityTimeout: '00:00:01', batchSize: 8, maxDequeueCount: 5 } } }));
  const storage = options.connection === undefined ? azuriteStorage() : { ...azuriteStorage(), connection: options.connection };
  const configFile = writeConfig({ storage, kubernetes: { kubeconfig }, targets: targets(activator) }, dir);
  const rt = await createRuntime({ configFile, env: {}, clock: options.clock, ...(options.clock ? { serviceClock: simulatedService(options.clock) } : {}) });
  await rt.storage.ensure();
  const hosts: LocalHost[] = [];
  return {
    kube,
    activator,
    rt,
    async startHost(schedule = farAwaySchedule()) {
      const host = await startLocalHost({ rt, log: silentLog, schedule, hostJsonFile });
      hosts.push(host);
      return host;
    },
    timeline() {
      const values: { at: number; replicas: number | undefined }[] = [];
      const look = () => {
        const replicas = kube.inspect(WEB)?.specReplicas;
        if (values.at(-1)?.replicas !== replicas) values.push({ at: Date.now(), replicas });
      };
      look();
      const timer = setInterval(look, 25);
      return {
        values,
        stop: () => {
          clearInterval(timer);
          look();
        },
      };
    },
    async close() {
      await Promise.all(hosts.map((h) => h.stop()));
      await Promise.all([kube.close(), activator.close()]);
    },
  };
}

/** Daily, twelve hours from now (a timer wait must fit setTimeout's 24.8 days). */
function farAwaySchedule(): string {
  const later = new Date(Date.now() + 12 * 3_600_000);
  return `${later.getSeconds()} ${later.getMinutes()} ${later.getHours()} * * *`;
}

/** Waits until `check` holds, polling; false when `ms` ran out first. */
export async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/** What a test of the file starts, closed after each test: its world and its load server. */
export interface PerTest {
  world?: TargetWorld;
  server?: http.Server;
}

/** A holder for each test's world and load server, both closed (when started) after each test. */
export function worldPerTest(): PerTest {
  const held: PerTest = {};
  afterEach(async () => {
    await closeWorldAndServer(held.world, held.server);
    delete held.world;
    delete held.server;
  });
  return held;
}

/** Closes what a test started: its world and its load server (either may be absent). */
export async function closeWorldAndServer(world: TargetWorld | undefined, server: http.Server | undefined): Promise<void> {
  await world?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
}
