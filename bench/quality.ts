/**
 * `npm run bench -- quality [--traces DIR] [--report FILE] [--quick]`: Drover's decisions
 * (`drover replay`'s code path) scored on real traces against the incumbents' emulations and
 * reference lines, by the scoring contract of issue 33 (bench/quality/). Prints a table per trace
 * and kind with each goal PASS or FAIL; `--report` writes the charts page and its PNG.
 */
import path from 'node:path';
import type { Benchmark, BenchContext, Figure } from './index.js';
import { repositoryRoot } from './cold-start.js';
import { sharedFolder } from '../sim/shared-folder.js';
import { scoreTraceKind, type TraceKindResult } from './quality/score-trace.js';
import { formatTable, qualityFigures } from './quality/table.js';
import { loadQualityTraces } from './quality/traces.js';
import { writeQualityReport } from './quality/report.js';
import { droverWorkers, type DroverWorkers } from './quality/workers.js';

/**
 * `../shared/traces` beside the repository; in a git worktree elsewhere (its `.git` a file naming
 * `<main>/.git/worktrees/<name>`), beside the main worktree when there is none beside this one.
 */
export function defaultTracesDir(root: string = repositoryRoot()): string {
  return sharedFolder('traces', root);
}

/** What runQuality is run with beside the command line's options. */
export interface QualityRun {
  /** The replay workers: by default a pool of worker threads running the compiled worker, one per core. */
  start?: () => DroverWorkers;
  /** Called with each trace and kind as soon as it and every one before it are scored, in order. */
  each?: (result: TraceKindResult) => void;
}

/**
 * Every trace for both kinds, in order. Drover's replays go to the workers, which run them side
 * by side, so that the run takes about its share of the work rather than the sum.
 */
export async function runQuality(context: Pick<BenchContext, 'quick' | 'traces'>, { start = () => droverWorkers(), each }: QualityRun = {}): Promise<TraceKindResult[]> {
  const traces = await loadQualityTraces(context.traces ?? defaultTracesDir(), context.quick);
  const workers = start();
  try {
    const scoring = traces.flatMap((trace) => (['vms', 'pods'] as const).map((kind) => scoreTraceKind(trace, kind, workers.run)));
    // Awaited in order; a later one's failure is heard when its turn comes, not as unhandled before it.
    for (const p of scoring) p.catch(() => undefined);
    const results: TraceKindResult[] = [];
    for (const p of scoring) {
      const result = await p;
      each?.(result);
      results.push(result);
    }
    return results;
  } finally {
    await workers.close();
  }
}

const benchmark: Benchmark = {
  name: 'quality',
  description: 'decisions scored on real traces (θU %, cost ÷ demand, actions) against Azure Monitor autoscale, HPA on KEDA and reference lines',
  async run(context) {
    // Each table as soon as it is scored: the first appear within a minute of a five-minute run.
    const results = await runQuality(context, { each: (r) => context.print(`${formatTable(r)}\n`) });
    if (context.report) {
      const png = await writeQualityReport(results, context.report, path.join(repositoryRoot(), 'docs', 'images', 'quality-bench.png'));
      context.print(`report written to ${context.report}${png ? ` and ${png}` : ' (no PNG: no Chromium)'}\n`);
    }
    return results.flatMap((r): Figure[] => qualityFigures(r));
  },
};

export default benchmark;
