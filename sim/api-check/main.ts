#!/usr/bin/env node
/**
 * `npm run check:api -- [--specs DIR] [--kubernetes FILE] [--recording DIR] [--demo-for SECONDS]`:
 * checks every exchange between Drover and the ARM and Kubernetes simulators against the official
 * specifications. Without `--recording` it records first, into a temporary folder removed after:
 * the integration test files of RECORDED_TESTS (vitest, `DROVER_RECORD_DIR` set) and the demo
 * story (`drover sim --record`) side by side. Exit 0: no violation; 1: violations, each naming
 * the call and the rule, or an operation of Drover's lists never recorded; 2: a bad option or a
 * specification folder missing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { RecordedExchange } from '../recorder.js';
import { sharedFolder } from '../shared-folder.js';
import { checkRecording } from './run.js';

/** Integration files whose traffic, with the demo's, makes every call of Drover's lists. */
export const RECORDED_TESTS = [
  'test/azure/compute-adapter.test.ts',
  'test/azure/autoscale-settings.test.ts',
  'test/kubernetes/client-node-scale-targets.test.ts',
  'test/pool/warm-buffer.test.ts',
  'test/load/azure-monitor.test.ts',
];

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

async function record(dir: string, demoSeconds: number): Promise<void> {
  const env = { ...process.env, DROVER_RECORD_DIR: dir };
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
  const [tests] = await Promise.all([
    run(npx, ['vitest', 'run', ...RECORDED_TESTS], env),
    run(process.execPath, [path.resolve('dist/start/main.js'), '--for', `${demoSeconds}s`, '--record', dir], env),
  ]);
  // Their traffic is checked all the same; what a failed test did not send, coverage names.
  if (tests !== 0) process.stderr.write(`check:api: the recorded tests failed (exit ${tests}); npm test says which\n`);
}

function readRecording(dir: string): RecordedExchange[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as RecordedExchange));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { specs: { type: 'string' }, kubernetes: { type: 'string' }, recording: { type: 'string' }, 'demo-for': { type: 'string' } },
  });
  const specs = path.resolve(values.specs ?? sharedFolder('arm-specs'));
  const kubernetes = path.resolve(values.kubernetes ?? path.join(specs, '../k8s-specs/v1.34.0/swagger.json'));
  const temporary = values.recording ? undefined : mkdtempSync(path.join(tmpdir(), 'drover-api-record-'));
  try {
    const dir = values.recording ?? temporary!;
    if (temporary) await record(temporary, Number(values['demo-for'] ?? 25));
    const report = checkRecording(specs, kubernetes, readRecording(dir));
    for (const line of report.lines) process.stdout.write(`${line}\n`);
    return report.ok ? 0 : 1;
  } finally {
    if (temporary) rmSync(temporary, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`check:api: ${error instanceof Error ? (process.env.DEBUG ? error.stack : error.message) : String(error)}\n`);
    process.exit(2);
  },
);
