/**
 * Writes the figures of `npm run bench -- --out FILE` into the documents that show them, so that
 * no figure is copied by hand: `node dist/bench/doc-tables.js FILE…` (later files override
 * earlier ones benchmark by benchmark, so a run of one benchmark updates only its rows).
 * - docs/benchmarks.md, between `<!-- bench:figures -->` and `<!-- /bench:figures -->`: every
 *   figure (the quality bench's apart), with its goal and ratio where it has one, and the runs'
 *   circumstances;
 * - README.md and docs/benchmarks.md, between `<!-- bench:goals -->` and `<!-- /bench:goals -->`:
 *   the figures that have a goal (issue 24's: the quality bench's apart);
 * - docs/benchmarks.md, between `<!-- bench:quality -->` and `<!-- /bench:quality -->`: the
 *   quality bench's table per trace and kind, each goal PASS or FAIL.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repositoryRoot } from './cold-start.js';
import { formatValue, type BenchRun, type Figure } from './index.js';
import { qualityTables } from './quality/table.js';

/** The quality bench's figures go into their own section (`<!-- bench:quality -->`), not issue 24's goals. */
const QUALITY = 'quality';

interface Merged {
  results: Record<string, Figure[]>;
  /** Per benchmark, the run it comes from. */
  runOf: Record<string, BenchRun['run']>;
}

export function mergeRuns(runs: readonly BenchRun[]): Merged {
  const merged: Merged = { results: {}, runOf: {} };
  for (const r of runs) {
    for (const [name, figures] of Object.entries(r.results)) {
      merged.results[name] = figures;
      merged.runOf[name] = r.run;
    }
  }
  return merged;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

function goalCells(f: Figure): [string, string] {
  if (f.goal === undefined) return ['', ''];
  const ratio = f.goal === 0 ? Infinity : f.value / f.goal;
  return [`≤ ${formatValue(f.goal)}`, `${formatValue(ratio)} (${ratio <= 1 ? 'met' : 'not met'})`];
}

function circumstances(run: BenchRun['run']): string {
  const l = run.loadAverage;
  return `${run.startedAt.slice(0, 16).replace('T', ' ')} UTC, ${run.cores} cores, Node ${run.node}, load average ${l.start.toFixed(1)} → ${l.end.toFixed(1)} (max ${l.max.toFixed(1)})${run.quick ? ', --quick' : ''}`;
}

/** Every figure, the quality bench's apart (its own section shows them). */
export function figuresTable(m: Merged): string {
  const lines = ['| benchmark | figure | value | goal | ratio |', '| --- | --- | --- | --- | --- |'];
  for (const [name, figures] of Object.entries(m.results)) {
    if (name === QUALITY) continue;
    for (const f of figures) lines.push(`| ${name} | ${cell(f.label)} | ${formatValue(f.value)} ${cell(f.unit)} | ${goalCells(f).join(' | ')} |`);
  }
  const names = Object.keys(m.runOf).filter((n) => n !== QUALITY);
  const runs = [...new Set(names.map((n) => circumstances(m.runOf[n]!)))];
  return [...lines, '', ...runs.map((r) => `Measured ${r}: ${names.filter((n) => circumstances(m.runOf[n]!) === r).join(', ')}.`)].join('\n');
}

/** Issue 24's goals: every benchmark's but the quality bench's, which has a section of its own. */
export function goalsTable(m: Merged): string {
  const lines = ['| figure | measured | goal | ratio |', '| --- | --- | --- | --- |'];
  for (const [name, figures] of Object.entries(m.results)) {
    if (name === QUALITY) continue;
    for (const f of figures) if (f.goal !== undefined) lines.push(`| ${cell(f.label)} | ${formatValue(f.value)} ${cell(f.unit)} | ${goalCells(f).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** `text` with what lies between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` replaced; throws when the markers are missing. */
export function replaceBetween(text: string, name: string, content: string): string {
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`no ${open} … ${close} markers`);
  return `${text.slice(0, start + open.length)}\n${content}\n${text.slice(end)}`;
}

function main(files: string[]): void {
  if (files.length === 0) throw new Error('usage: node dist/bench/doc-tables.js BENCH_RUN.json…');
  const merged = mergeRuns(files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as BenchRun));
  const root = repositoryRoot();
  const docs = path.join(root, 'docs/benchmarks.md');
  const readme = path.join(root, 'README.md');
  let text = replaceBetween(replaceBetween(readFileSync(docs, 'utf8'), 'figures', figuresTable(merged)), 'goals', goalsTable(merged));
  const quality = merged.results[QUALITY];
  if (quality) text = replaceBetween(text, 'quality', `${qualityTables(quality)}\n\nMeasured ${circumstances(merged.runOf[QUALITY]!)}.`);
  writeFileSync(docs, text);
  writeFileSync(readme, replaceBetween(readFileSync(readme, 'utf8'), 'goals', goalsTable(merged)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  }
}
