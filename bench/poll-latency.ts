/**
 * Fresh signals (`load.pollInterval`): five `http` targets on Azurite and the Kubernetes
 * simulator, run by the local host with the production host.json and the default timer, at
 * pollInterval 2s, 15s and 60s. Each target's load jumps at its own phase of the interval
 * (spread evenly over it, as a load change lands at any moment), over a 2 s stable window so
 * that the first reading after the jump moves the scale; the latency is from the jump
 * to the simulator seeing the scale patch. Table requests per target per hour are what a
 * steady reconcile sends (counted on the wire over a steady window at 2s), times the
 * reconciles an hour brings: one per poll plus the timer's one a minute.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { silentLog } from '../src/log.js';
import { startAzurite } from '../sim/azurite.js';
import { startKubernetesSim, type KubernetesSim } from '../sim/kubernetes/server.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { startLocalHost } from '../src/host/local-host.js';
import { median } from './cold-start.js';
import type { Benchmark, Figure } from './index.js';

const TARGETS = 5;
const INTERVALS_S = [2, 15, 60];
/** Latency rounds per interval: more where they are short. */
const ROUNDS: Record<number, number> = { 2: 4, 15: 2, 60: 1 };
const STEADY_WINDOW_MS = 12_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const ref = (i: number) => ({ kind: 'Deployment' as const, namespace: 'default', name: `web${i}` });

/** One load value per target, answered at /load/webN. */
async function loadServer(): Promise<{ url: string; loads: number[]; reads: number; close(): Promise<void> }> {
  const state = { loads: Array.from({ length: TARGETS }, () => 10), reads: 0 };
  const server = http.createServer((req, res) => {
    state.reads++;
    const i = Number(/web(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
    res.writeHead(200).end(String(state.loads[i] ?? 0));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/load`,
    get loads() {
      return state.loads;
    },
    get reads() {
      return state.reads;
    },
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function countTableRequests(rt: Runtime): { count: number } {
  const counter = { count: 0 };
  for (const name of Object.keys(rt.storage.names.tables) as (keyof typeof rt.storage.names.tables)[]) {
    rt.storage.table(name).pipeline.addPolicy({
      name: 'bench-count',
      sendRequest(request, next) {
        counter.count++;
        return next(request);
      },
    });
  }
  return counter;
}

interface Run {
  latenciesMs: number[];
  /** Table requests per reconcile over a steady window (measured at the shortest interval only). */
  requestsPerReconcile?: number;
}

async function runInterval(seconds: number, connection: string, kube: KubernetesSim, dir: string): Promise<Run> {
  const source = await loadServer();
  const names = Array.from({ length: TARGETS }, (_, i) => `web${i}`);
  for (let i = 0; i < TARGETS; i++) kube.add(ref(i), { replicas: 1 });
  const configFile = path.join(dir, `drover-${seconds}s.yaml`);
  writeFileSync(
    configFile,
    stringify({
      storage: { connection, prefix: `b${randomBytes(4).toString('hex')}` },
      kubernetes: { kubeconfig: path.join(dir, 'kubeconfig.yaml') },
      targets: names.map((name) => ({
        name,
        minScale: 1,
        // A short window: the first reading after a jump moves the desired scale, and a round's
        // writes are over (no settling re-reads left running) before the next round starts.
        scaleToZero: { enabled: false, stableWindow: '2s' },
        scaleTargetRef: { kind: 'Deployment', name },
        load: { source: 'http', url: `${source.url}/${name}`, targetPerReplica: 10, pollInterval: `${seconds}s` },
      })),
    }),
  );
  const rt = await createRuntime({ configFile, env: {} });
  const requests = countTableRequests(rt);
  const host = await startLocalHost({ rt, log: silentLog });
  const intervalMs = seconds * 1000;
  try {
    for (const name of names) await rt.queues.reconcile({ kind: 'target', name, reason: 'bench' });
    // Adopted, and each chain on its grid.
    await sleep(Math.min(intervalMs, 5_000) + 3_000);
    let requestsPerReconcile: number | undefined;
    if (seconds === INTERVALS_S[0]) {
      const [r0, q0] = [source.reads, requests.count];
      await sleep(STEADY_WINDOW_MS);
      requestsPerReconcile = (requests.count - q0) / Math.max(1, source.reads - r0);
    }
    const latenciesMs: number[] = [];
    for (let round = 0; round < ROUNDS[seconds]!; round++) {
      const base = Math.ceil(Date.now() / intervalMs) * intervalMs;
      const before = names.map((_, i) => kube.inspect(ref(i))?.specReplicas ?? 0);
      const jumps = names.map((_, i) => base + ((i + 0.5) * intervalMs) / TARGETS);
      const seen: (number | undefined)[] = names.map(() => undefined);
      const until = base + 2 * intervalMs + 10_000;
      while (Date.now() < until && seen.some((s) => s === undefined)) {
        const now = Date.now();
        for (let i = 0; i < TARGETS; i++) {
          if (now >= jumps[i]! && source.loads[i]! < 10 * 3 ** (round + 2)) source.loads[i] = 10 * 3 ** (round + 2);
          if (seen[i] === undefined && now >= jumps[i]! && (kube.inspect(ref(i))?.specReplicas ?? 0) > before[i]!) seen[i] = now - jumps[i]!;
        }
        await sleep(10);
      }
      latenciesMs.push(...seen.map((s) => s ?? Infinity));
      await sleep(4_000);
    }
    return { latenciesMs, ...(requestsPerReconcile === undefined ? {} : { requestsPerReconcile }) };
  } finally {
    await host.stop();
    await source.close();
    for (let i = 0; i < TARGETS; i++) kube.remove(ref(i));
  }
}

async function run(): Promise<Figure[]> {
  const azurite = await startAzurite();
  const kube = await startKubernetesSim({ readyDelayMs: 0 });
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-poll-latency-'));
  writeFileSync(path.join(dir, 'kubeconfig.yaml'), kube.kubeconfigYaml());
  try {
    const figures: Figure[] = [];
    let perReconcile = 0;
    for (const seconds of INTERVALS_S) {
      const result = await runInterval(seconds, azurite.connectionString, kube, dir);
      if (result.requestsPerReconcile !== undefined) perReconcile = result.requestsPerReconcile;
      const reconcilesPerHour = 3_600 / seconds + 60;
      figures.push(
        { label: `pollInterval ${seconds}s: median load-change-to-patch latency`, value: median(result.latenciesMs) / 1000, unit: 's' },
        { label: `pollInterval ${seconds}s: slowest of ${result.latenciesMs.length}`, value: Math.max(...result.latenciesMs) / 1000, unit: 's' },
        { label: `pollInterval ${seconds}s: Table requests per target per hour`, value: Math.round(perReconcile * reconcilesPerHour), unit: 'requests' },
      );
    }
    figures.push({ label: 'Table requests per steady reconcile', value: perReconcile, unit: 'requests' });
    return figures;
  } finally {
    await kube.close();
    await azurite.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const benchmark: Benchmark = {
  name: 'poll-latency',
  description: 'http targets polled through delayed reconcile messages: load change to scale patch, and Table requests',
  run,
};
export default benchmark;
