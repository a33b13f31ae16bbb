/**
 * `drover status` as an operator runs it: the bin's bundle in a fresh process, on a config file
 * of the fleet just reconciled, through the counting proxy. Wall time from spawn to exit (start-up,
 * the reads, printing every instance and machine) and the Table requests it made.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { repositoryRoot } from './cold-start.js';
import type { BenchWorld } from './bench-world.js';

export interface StatusRun {
  wallMs: number;
  requests: number;
  /** Bytes of the text it printed. */
  bytes: number;
}

export async function timeStatusCli(world: BenchWorld, config: Record<string, unknown>, json: boolean): Promise<StatusRun> {
  const file = path.join(world.dir, `status-${Date.now()}.yaml`);
  writeFileSync(file, stringify(config));
  const before = await world.tableRequests();
  const started = performance.now();
  const bytes = await new Promise<number>((resolve, reject) => {
    const args = [path.join(repositoryRoot(), 'dist/cli/drover.js'), 'status', '--config', file, ...(json ? ['--json'] : [])];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DROVER_CONFIG: '' } });
    let out = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.length));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`drover status exited ${code}: ${stderr.slice(0, 2_000)}`))));
  });
  const wallMs = performance.now() - started;
  return { wallMs, requests: (await world.tableRequests()) - before, bytes };
}
