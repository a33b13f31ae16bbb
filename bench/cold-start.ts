/**
 * Cold start: how long a fresh Node.js process takes to import the function app's entry
 * point(s) and register every function, and how many files it reads doing so, for the tsc
 * output (dist/functions/*.js over node_modules) and for the bundle `npm run build` deploys
 * (dist/deploy/app/main.js).
 *
 * Each measurement is a new process, as a cold start is. The process stands in for the
 * Functions worker: it provides `@azure/functions-core` the way the worker does (by hooking
 * Module.prototype.require) and records what registers, so the registrations really happen.
 * Files are counted in a separate run, since the loader hooks that see them slow loading down.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Benchmark, Figure } from './index.js';

export interface RegisteredFunction {
  name: string;
  bindings: Record<string, Record<string, unknown>>;
}

export interface ColdStart {
  /** Import of every entry point, registrations included. */
  ms: number;
  functions: RegisteredFunction[];
  /** With `countFiles`: every file the process loaded (ES modules and CommonJS). */
  files?: { path: string; bytes: number }[];
}

/** Runs in the child: a stand-in for the worker's built-in module, then the imports. */
const CHILD = String.raw`
import Module, { register } from 'node:module';
import { statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
const [mode, ...entries] = process.argv.slice(1);
const functions = [];
const disposable = { dispose() {} };
const core = {
  version: 'cold-start-bench', hostVersion: '4.0.0',
  setProgrammingModel() {}, getProgrammingModel() { return undefined; },
  registerHook() { return disposable; },
  registerFunction(metadata) { functions.push({ name: metadata.name, bindings: metadata.bindings }); return disposable; },
  Disposable: class { dispose() {} },
};
const originalRequire = Module.prototype.require;
Module.prototype.require = function (id, ...rest) {
  return id === '@azure/functions-core' ? core : originalRequire.call(this, id, ...rest);
};
const seen = new Set();
let port;
if (mode === 'count') {
  const channel = new MessageChannel();
  port = channel.port1;
  port.on('message', (url) => seen.add(fileURLToPath(url)));
  const hooks = 'let port; export function initialize(data) { port = data.port; }\n'
    + 'export async function load(url, context, next) { if (url.startsWith("file:")) port.postMessage(url); return next(url, context); }';
  register('data:text/javascript,' + encodeURIComponent(hooks), { data: { port: channel.port2 }, transferList: [channel.port2] });
}
const started = performance.now();
for (const entry of entries) await import(pathToFileURL(entry).href);
const ms = performance.now() - started;
const result = { ms, functions };
if (mode === 'count') {
  await new Promise((resolve) => setTimeout(resolve, 100));
  port.close();
  for (const file of Object.keys(Module._cache)) seen.add(file);
  result.files = [...seen].sort().map((file) => ({ path: file, bytes: statSync(file).size }));
}
console.log(JSON.stringify(result));
`;

const CHILD_TIMEOUT_MS = 30_000;

/** Imports `entries` in a new process (see CHILD) and reports what it took. */
export function importInFreshProcess(entries: readonly string[], options: { countFiles?: boolean; cwd?: string } = {}): Promise<ColdStart> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', CHILD, options.countFiles ? 'count' : 'time', ...entries],
      { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: CHILD_TIMEOUT_MS },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) {
        reject(new Error(`importing ${entries.join(', ')} failed (${signal ?? `exit ${code}`}):\n${stderr || stdout}`));
        return;
      }
      resolve(JSON.parse(last) as ColdStart);
    });
  });
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The repository root: the nearest directory above this file that has functions/ and package.json. */
export function repositoryRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  while (!(existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'functions')))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no repository root above ${from}`);
    dir = parent;
  }
  return dir;
}

export interface Variant {
  label: string;
  entries: string[];
}

/** What a cold start imports before and after bundling; both come from `npm run build`. */
export function coldStartVariants(root: string = repositoryRoot()): { unbundled: Variant; bundle: Variant } {
  const tscDir = path.join(root, 'dist', 'functions');
  const bundle = path.join(root, 'dist', 'deploy', 'app', 'main.js');
  if (!existsSync(tscDir) || !existsSync(bundle)) throw new Error(`${tscDir} or ${bundle} is missing: run npm run build`);
  return {
    unbundled: {
      label: 'tsc output',
      entries: readdirSync(tscDir).filter((f) => f.endsWith('.js')).sort().map((f) => path.join(tscDir, f)),
    },
    bundle: { label: 'bundle', entries: [bundle] },
  };
}

/** The function names the app must register: one per file in functions/. */
export function expectedFunctions(root: string = repositoryRoot()): string[] {
  return readdirSync(path.join(root, 'functions')).filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, '')).sort();
}

const RUNS = 7;

async function measure(variants: readonly Variant[], expected: readonly string[]): Promise<Map<Variant, { ms: number[]; files: ColdStart['files'] }>> {
  const results = new Map(variants.map((v) => [v, { ms: [] as number[], files: undefined as ColdStart['files'] }]));
  const check = (variant: Variant, run: ColdStart) => {
    const names = run.functions.map((f) => f.name).sort();
    if (names.join() !== expected.join()) {
      throw new Error(`${variant.label} registered [${names.join(', ')}], expected [${expected.join(', ')}]`);
    }
  };
  // Interleaved, so that a slow spell of the machine weighs on both alike.
  for (let i = 0; i < RUNS; i++) {
    for (const variant of variants) {
      const run = await importInFreshProcess(variant.entries);
      check(variant, run);
      results.get(variant)!.ms.push(run.ms);
    }
  }
  for (const variant of variants) {
    const run = await importInFreshProcess(variant.entries, { countFiles: true });
    check(variant, run);
    results.get(variant)!.files = run.files;
  }
  return results;
}

const coldStart: Benchmark = {
  name: 'cold-start',
  description: `import the function app and register its functions in a fresh process (median of ${RUNS})`,
  async run(): Promise<Figure[]> {
    const { unbundled, bundle } = coldStartVariants();
    const results = await measure([unbundled, bundle], expectedFunctions());
    const figures: Figure[] = [];
    for (const variant of [unbundled, bundle]) {
      const { ms, files = [] } = results.get(variant)!;
      const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
      figures.push(
        { label: `${variant.label}: import and register`, value: median(ms), unit: 'ms' },
        { label: `${variant.label}: files loaded`, value: files.length, unit: 'files' },
        { label: `${variant.label}: bytes loaded`, value: Number((bytes / 1024 / 1024).toFixed(2)), unit: 'MiB' },
      );
    }
    figures.push({
      label: 'speed-up from bundling',
      value: Number((median(results.get(unbundled)!.ms) / median(results.get(bundle)!.ms)).toFixed(2)),
      unit: '×',
    });
    return figures;
  },
};

export default coldStart;
