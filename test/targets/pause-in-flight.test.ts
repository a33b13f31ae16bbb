/**
 * `drover pause` while a pass of `drover run` (another process) waits on a slow load source:
 * the pass read the target's row and took no lease yet, the pause returns at once, and the
 * pass, once its source answers a load that asks for 30 replicas, must write no scale. The
 * source here answers when the test releases it (in the field: after 12 s).
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { bundleCli } from '../../scripts/build.mjs';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';
import { drover } from '../support/cli.js';
import { azuriteStorage, tempDir, writeConfig } from '../support/config.js';
import { killGroup, startGroup, until } from '../support/process-group.js';
import { eventually, WEB } from './support.js';

const running: ChildProcess[] = [];
let kube: KubernetesSim | undefined;
let source: HeldSource | undefined;
let cli: string;

beforeAll(async () => {
  const dir = tempDir();
  await bundleCli(path.join(dir, 'cli'));
  cli = path.join(dir, 'cli', 'drover.js');
  // The bundle's host.json (the nearest above it): queues polled every 100 ms at most.
  writeFileSync(path.join(dir, 'host.json'), JSON.stringify({ version: '2.0', extensions: { queues: { maxPollingInterval: '00:00:00.100', visibilityTimeout: '00:00:01', batchSize: 8, maxDequeueCount: 5 } } }));
}, 60_000);

afterEach(async () => {
  for (const child of running.splice(0)) if (child.pid !== undefined) killGroup(child.pid);
  await source?.close();
  await kube?.close();
  source = kube = undefined;
});

interface HeldSource {
  url: string;
  /** Requests waiting for `release`. */
  held(): number;
  /** Answers every held request (and every later one) with `load`. */
  release(load: number): void;
  close(): Promise<void>;
}

/** An `http` source answering `first` to its first request and holding every later one until released. */
async function heldSource(first: number): Promise<HeldSource> {
  let served = 0;
  let released: number | undefined;
  const waiting: http.ServerResponse[] = [];
  const answer = (res: http.ServerResponse, load: number) => res.end(String(load));
  const server = http.createServer((_req, res) => {
    served++;
    if (served === 1) answer(res, first);
    else if (released !== undefined) answer(res, released);
    else waiting.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/load`,
    held: () => waiting.length,
    release(load) {
      released = load;
      for (const res of waiting.splice(0)) answer(res, load);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Daily, twelve hours from now: no timer pass during the test. */
function farAwaySchedule(): string {
  const later = new Date(Date.now() + 12 * 3_600_000);
  return `${later.getSeconds()} ${later.getMinutes()} ${later.getHours()} * * *`;
}

/** The decisions recorded for target/web, oldest first. */
async function webDecisions(rt: Runtime) {
  return (await rt.decisions.recent(Date.now(), 200)).filter((d) => d.object === 'target/web').sort((a, b) => a.at - b.at);
}

it('a pause taken while a pass of drover run waits on its source: no scale is written after the pause returns', async () => {
  kube = await startKubernetesSim();
  kube.add(WEB, { replicas: 2 });
  source = await heldSource(20);
  const dir = tempDir();
  const kubeconfig = path.join(dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, kube.kubeconfigYaml());
  const configFile = writeConfig(
    {
      storage: azuriteStorage(),
      kubernetes: { kubeconfig },
      targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, minScale: 1, maxScale: 50, load: { source: 'http', url: source.url, targetPerReplica: 10, timeout: '60s' } }],
    },
    dir,
  );
  const rt = await createRuntime({ configFile, env: {} });
  await rt.storage.ensure();

  // Queued reconciles only (the timer's passes carry an occurrence claim of their own): the
  // first adopts the target at 2 (load 20) and asks for the next a second later, which waits on the source.
  const host = startGroup(process.execPath, [cli, '--config', configFile, 'run'], { cwd: dir, env: { PATH: process.env.PATH, DROVER_SCHEDULE: farAwaySchedule() }, running });
  await until('the host to run', () => /local host running/.test(host.output()), 30_000, host.output);
  expect((await drover('--config', configFile, 'enqueue', '--target', 'web')).code).toBe(0);
  await until('a pass to wait on the source', () => source!.held() > 0, 30_000, host.output);
  expect((await rt.table('targets').get('web', 'status'))?.props).toMatchObject({ requestedScale: 2 });

  const paused = await drover('--config', configFile, 'pause', 'web');
  expect(paused, paused.stderr).toMatchObject({ code: 0, stdout: 'target web: paused (no scale written)\n' });
  const pausedAt = Date.now();

  // The waiting passes now learn a load of 300: 30 replicas, had the pause not been taken.
  source.release(300);
  // Every pass that waited ends (it is refused), and a later one holds the target, bound by the pause.
  const settled = await eventually(async () => (await webDecisions(rt)).some((d) => d.at > pausedAt && d.boundBy === 'Paused'), 20_000);
  expect(settled, host.output()).toBe(true);
  expect(source.held()).toBe(0);

  const patches = kube.requests.filter((r) => r.op === 'patchScale');
  expect(patches).toEqual([]);
  expect(kube.inspect(WEB)?.specReplicas).toBe(2);
  const after = (await webDecisions(rt)).filter((d) => d.at >= pausedAt);
  expect(after.map((d) => d.decision)).not.toContainEqual(expect.stringMatching(/^scaled/));
}, 90_000);
