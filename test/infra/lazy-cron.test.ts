/**
 * Start-up loads no cron parser it does not use: the graph of static imports (what runs when a
 * module is imported, found by esbuild; dynamic imports are boundaries) from the status entry
 * and from the timer's occurrence machinery reaches no `cron-parser`, which the occurrence is
 * computed with only across a dynamic import. From the reconcile entry it is reached only
 * through the target policy's schedules and their config schema (owned with the policy).
 */
import path from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/source-graph.js';

type Inputs = esbuild.Metafile['inputs'];

async function graphOf(entry: string): Promise<Inputs> {
  const { metafile } = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    splitting: true,
    outdir: path.join(ROOT, 'unused'),
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return metafile.inputs;
}

/** The files through which `entry` imports `pkg` statically: each path's last source file. */
function staticImporters(inputs: Inputs, entry: string, pkg: string): string[] {
  const found = new Set<string>();
  const seen = new Set<string>();
  const stack = [entry];
  for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const i of inputs[file]?.imports ?? []) {
      if (i.kind === 'dynamic-import') continue;
      if (i.external) {
        if (i.path === pkg || i.path.startsWith(`${pkg}/`)) found.add(file);
      } else stack.push(i.path);
    }
  }
  return [...found].sort();
}

describe('the cron parser at start-up', () => {
  it('is not loaded by the status entry, nor by leases, occurrence claims or the timer occurrence, which loads it behind a dynamic import', async () => {
    for (const entry of ['src/status/status.ts', 'src/state/leases.ts', 'src/reconcile/occurrence-claims.ts', 'src/reconcile/timer-occurrence.ts']) {
      expect(staticImporters(await graphOf(entry), entry, 'cron-parser'), entry).toEqual([]);
    }
    const timer = await graphOf('src/reconcile/timer-occurrence.ts');
    expect(timer['src/reconcile/timer-occurrence.ts']?.imports.filter((i) => i.path === 'src/host/schedule.ts').map((i) => i.kind)).toEqual(['dynamic-import']);
  }, 60_000);

  it('is reached from the reconcile entry only through the target policy schedules', async () => {
    const importers = staticImporters(await graphOf('src/reconcile/pass.ts'), 'src/reconcile/pass.ts', 'cron-parser');
    expect(importers).toEqual(['src/config/policy-schema.ts', 'src/scaler/limit/schedules.ts']);
  }, 60_000);
});
