/**
 * What the fleet benchmarks run against: Azurite, and the ARM simulator in a process of its own
 * (arm-sim-child.ts) with a counting proxy in front of Azurite's Table endpoint, so that a
 * benchmark's CPU figures are Drover's and its request counts are what went on the wire.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAzurite } from '../sim/azurite.js';

export const SUBSCRIPTION = '00000000-0000-0000-0000-0000000be4c5';

export interface SimReply {
  counts: { listVms: number; requests: number } & Record<string, number>;
  /** Table requests the proxy has seen so far. */
  tableRequests: number;
  /** Requests by verb and table (or `$batch`), for finding where they go. */
  byKind: Record<string, number>;
  proxyPort?: number;
}

export interface SimChild {
  url: string;
  caPem: string;
  request(msg: object): Promise<SimReply>;
  close(): Promise<void>;
}

async function startSimChild(): Promise<SimChild> {
  const child: ChildProcess = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'arm-sim-child.js'), [SUBSCRIPTION], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const first = await new Promise<{ url: string; caPem: string }>((resolve) => child.once('message', (m) => resolve(m as { url: string; caPem: string })));
  const request = (msg: object) =>
    new Promise<SimReply>((resolve) => {
      child.once('message', (m) => resolve(m as SimReply));
      child.send(msg);
    });
  return { ...first, request, close: () => new Promise((r) => { child.once('exit', () => r()); child.send({ close: true }); }) };
}

export interface BenchWorld {
  sim: SimChild;
  /** Azurite's connection string with the Table endpoint through the counting proxy. */
  connection: string;
  /** A folder for config files and the simulator's CA, removed by `close`. */
  dir: string;
  caFile: string;
  azure: { subscriptionId: string; credential: 'dev'; resourceManagerEndpoint: string; caFile: string };
  /** Table requests through the proxy so far. */
  tableRequests(): Promise<number>;
  close(): Promise<void>;
}

export async function startBenchWorld(name: string): Promise<BenchWorld> {
  const azurite = await startAzurite({ timeoutMs: 60_000 });
  const sim = await startSimChild();
  const dir = mkdtempSync(path.join(tmpdir(), `drover-bench-${name}-`));
  const caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, sim.caPem);
  const tablePort = Number(/TableEndpoint=http:\/\/127\.0\.0\.1:(\d+)/.exec(azurite.connectionString)![1]);
  const { proxyPort } = await sim.request({ proxy: tablePort });
  return {
    sim,
    connection: azurite.connectionString.replace(`:${tablePort}/`, `:${proxyPort}/`),
    dir,
    caFile,
    azure: { subscriptionId: SUBSCRIPTION, credential: 'dev', resourceManagerEndpoint: sim.url, caFile },
    tableRequests: async () => (await sim.request({})).tableRequests,
    async close() {
      await sim.close();
      await azurite.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `--quick` (or DROVER_BENCH_QUICK=1): smaller sizes and shorter windows, for a check in a minute or two. */
export const quick = (): boolean => process.env.DROVER_BENCH_QUICK === '1';
