/**
 * Runs Drover's benchmarks and prints their figures: `npm run bench [-- NAME…] [-- --json] [-- --quick]`
 * (the quality benchmark also takes `--traces DIR` and `--report FILE`).
 * `--quick` runs the fleet benchmarks at smaller sizes and over shorter windows (a check, not figures).
 * `--out FILE` also writes the figures as JSON with the run's circumstances (BenchRun), which
 * `node dist/bench/doc-tables.js FILE…` writes into docs/benchmarks.md and the README.
 * `npm run bench` builds first, so every benchmark may rely on dist/ being current.
 *
 * A benchmark is a module whose default export is a `Benchmark`; adding one is adding its
 * module to BENCHMARKS.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export interface Figure {
  label: string;
  value: number;
  unit: string;
  /** The goal for it (at most this), printed with the figure's ratio to it. */
  goal?: number;
}

/** What a benchmark is run with: the command line's options, and where its own text goes. */
export interface BenchContext {
  quick: boolean;
  /** `--traces DIR`: the traces folder (the quality benchmark). */
  traces?: string;
  /** `--report FILE`: an HTML page of what it measured (the quality benchmark). */
  report?: string;
  /** Prints a benchmark's own text (its tables): to stdout, or to stderr under `--json`. */
  print(text: string): void;
}

export interface Benchmark {
  name: string;
  description: string;
  run(context: BenchContext): Promise<Figure[]>;
}

const BENCHMARKS: readonly string[] = [
  './cold-start.js',
  './instance-cache.js',
  './pool.js',
  './fleet-hour.js',
  './scale-in.js',
  './rows.js',
  './cache-scans.js',
  './cli-start.js',
  './transactions.js',
  './two-hosts.js',
  './replay-week.js',
  './poll-latency.js',
  './quality.js',
];

export async function loadBenchmarks(modules: readonly string[] = BENCHMARKS): Promise<Benchmark[]> {
  return Promise.all(modules.map(async (m) => ((await import(m)) as { default: Benchmark }).default));
}

export function formatFigures(benchmark: Benchmark, figures: readonly Figure[]): string {
  const width = Math.max(...figures.map((f) => f.label.length));
  const lines = figures.map((f) => `  ${f.label.padEnd(width)}  ${formatValue(f.value)} ${f.unit}${goalText(f)}`.trimEnd());
  return [`${benchmark.name}: ${benchmark.description}`, ...lines].join('\n');
}

/** "  (goal ≤ 15: 0.53 of it, met)" for a figure with a goal. */
function goalText(f: Figure): string {
  if (f.goal === undefined) return '';
  const ratio = f.goal === 0 ? Infinity : f.value / f.goal;
  return `  (goal ≤ ${formatValue(f.goal)}: ${formatValue(ratio)} of it, ${ratio <= 1 ? 'met' : 'not met'})`;
}

export function formatValue(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2);
}

/** What `--out` writes: the figures, and when and on what they were measured. */
export interface BenchRun {
  run: { startedAt: string; finishedAt: string; node: string; cores: number; quick: boolean; loadAverage: { start: number; max: number; end: number } };
  results: Record<string, Figure[]>;
}

/** The 1-minute load average, sampled every 10 s while the benchmarks run. */
function watchLoad(): { sofar(): { start: number; max: number; end: number }; stop(): { start: number; max: number; end: number } } {
  const start = loadavg()[0]!;
  let max = start;
  const timer = setInterval(() => (max = Math.max(max, loadavg()[0]!)), 10_000);
  timer.unref();
  const sofar = () => {
    const end = loadavg()[0]!;
    return { start, max: Math.max(max, end), end };
  };
  return {
    sofar,
    stop() {
      clearInterval(timer);
      return sofar();
    },
  };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { json: { type: 'boolean', default: false }, quick: { type: 'boolean', default: false }, out: { type: 'string' }, traces: { type: 'string' }, report: { type: 'string' } },
    allowPositionals: true,
  });
  if (values.quick) process.env.DROVER_BENCH_QUICK = '1';
  const all = await loadBenchmarks();
  const unknown = positionals.filter((name) => !all.some((b) => b.name === name));
  if (unknown.length > 0) {
    throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${all.map((b) => b.name).join(', ')}`);
  }
  const chosen = positionals.length > 0 ? all.filter((b) => positionals.includes(b.name)) : all;
  const results: Record<string, Figure[]> = {};
  const startedAt = new Date().toISOString();
  const load = watchLoad();
  // Written after each benchmark, so a run stopped half-way keeps what it measured.
  const save = (loadAverage: BenchRun['run']['loadAverage']) => {
    if (!values.out) return;
    const run: BenchRun = { run: { startedAt, finishedAt: new Date().toISOString(), node: process.version, cores: cpus().length, quick: values.quick, loadAverage }, results };
    writeFileSync(values.out, `${JSON.stringify(run, null, 2)}\n`);
  };
  const context: BenchContext = {
    quick: values.quick,
    ...(values.traces !== undefined ? { traces: values.traces } : {}),
    ...(values.report !== undefined ? { report: values.report } : {}),
    print: (text) => (values.json ? process.stderr.write(`${text}\n`) : console.log(text)),
  };
  for (const benchmark of chosen) {
    const figures = await benchmark.run(context);
    results[benchmark.name] = figures;
    if (!values.json) console.log(`${formatFigures(benchmark, figures)}\n`);
    save(load.sofar());
  }
  if (values.json) console.log(JSON.stringify(results, null, 2));
  save(load.stop());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
