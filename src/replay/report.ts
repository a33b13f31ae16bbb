/**
 * What `drover replay` prints: a table of each target's summary (two configurations side by
 * side with the difference under `--compare`), or JSON with ISO times, written in chunks so a
 * week-long timeline never becomes one string.
 */
import type { ReplaySummary, TargetReplayResult } from './target-replay.js';
import { poolJson } from './pool-report.js';

export interface ReplayRunResult {
  /** The configuration file, as given. */
  config: string;
  targets: TargetReplayResult[];
}

const iso = (ms: number) => new Date(ms).toISOString();

export function summaryJson(s: ReplaySummary) {
  return {
    replicaMinutes: round(s.replicaMinutes, 3),
    peakReplicas: s.peakReplicas,
    wakesFromZero: s.wakesFromZero,
    scaleWrites: s.scaleWrites,
    underProvisionedSeconds: round(s.underProvisionedSeconds, 3),
    activationLatenciesMs: s.activationLatenciesMs,
    reconciles: s.reconciles,
    from: iso(s.startedAt),
    to: iso(s.endedAt),
  };
}

/**
 * `{ "targets": [ { "name", "summary", "timeline" } ] }`, plus `compare` of the same shape. A
 * timeline row has `forecast: { floor, wouldRaise }` while the adaptive policy's forecast had a floor.
 */
export function* replayJson(main: ReplayRunResult, compare?: ReplayRunResult): Generator<string> {
  yield '{\n  "config": ' + JSON.stringify(main.config) + ',\n  "targets": ';
  yield* targetsJson(main.targets, '  ');
  if (compare) {
    yield ',\n  "compare": {\n    "config": ' + JSON.stringify(compare.config) + ',\n    "targets": ';
    yield* targetsJson(compare.targets, '    ');
    yield '\n  }';
  }
  yield '\n}\n';
}

function* targetsJson(targets: TargetReplayResult[], indent: string): Generator<string> {
  yield '[';
  for (const [t, target] of targets.entries()) {
    yield `${t ? ',' : ''}\n${indent}  { "name": ${JSON.stringify(target.name)}, "summary": ${JSON.stringify(summaryJson(target.summary))},\n${indent}    "timeline": [`;
    let chunk: string[] = [];
    let first = true;
    for (const r of target.timeline.rows()) {
      const forecast = r.forecast ? `,"forecast":{"floor":${r.forecast.floor},"wouldRaise":${r.forecast.wouldRaise}}` : '';
      chunk.push(`${first ? '' : ','}\n${indent}      {"at":"${iso(r.at)}","load":${r.load},"desired":${r.desired ?? 'null'},"scale":${r.scale},"ready":${r.ready},"boundBy":${r.boundBy ? `"${r.boundBy}"` : 'null'}${forecast}}`);
      first = false;
      if (chunk.length === 1_000) {
        yield chunk.join('');
        chunk = [];
      }
    }
    yield `${chunk.join('')}\n${indent}    ]`;
    yield* poolJson(target.pool, indent);
    yield ' }';
  }
  yield `\n${indent}]`;
}

interface Line {
  label: string;
  value: (s: ReplaySummary) => number;
  format: (n: number) => string;
  /** How a difference is shown. */
  diff: (a: number, b: number) => string;
}

const signed = (n: number, digits = 0) => `${n > 0 ? '+' : ''}${n.toFixed(digits)}`;
const relative = (a: number, b: number) => (a === 0 ? '' : ` (${signed(((b - a) / a) * 100)} %)`);

const LINES: Line[] = [
  { label: 'replica-minutes', value: (s) => s.replicaMinutes, format: (n) => n.toFixed(1), diff: (a, b) => `${signed(b - a, 1)}${relative(a, b)}` },
  { label: 'peak replicas', value: (s) => s.peakReplicas, format: String, diff: (a, b) => signed(b - a) },
  { label: 'wakes from zero', value: (s) => s.wakesFromZero, format: String, diff: (a, b) => signed(b - a) },
  { label: 'scale writes', value: (s) => s.scaleWrites, format: String, diff: (a, b) => signed(b - a) },
  { label: 'under-provisioned s', value: (s) => s.underProvisionedSeconds, format: (n) => n.toFixed(0), diff: (a, b) => signed(b - a) },
  { label: 'activation p50 ms', value: (s) => percentile(s.activationLatenciesMs, 0.5), format: formatMs, diff: (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? '' : signed(b - a)) },
  { label: 'activation max ms', value: (s) => percentile(s.activationLatenciesMs, 1), format: formatMs, diff: (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? '' : signed(b - a)) },
  { label: 'reconciles', value: (s) => s.reconciles, format: String, diff: (a, b) => signed(b - a) },
];

/** The summaries as a table; with a comparison, side by side with the differences. */
export function renderSummaries(main: ReplayRunResult, compare?: ReplayRunResult): string {
  const out: string[] = [];
  for (const target of main.targets) {
    const other = compare?.targets.find((t) => t.name === target.name);
    const s = target.summary;
    out.push(`target ${target.name}: ${iso(s.startedAt)} → ${iso(s.endedAt)}`);
    const header = other ? ['', main.config, compare!.config, 'difference'] : ['', main.config];
    const rows = [header];
    for (const line of LINES) {
      const a = line.value(s);
      const row = [line.label, line.format(a)];
      if (other) {
        const b = line.value(other.summary);
        row.push(line.format(b), line.diff(a, b));
      }
      rows.push(row);
    }
    out.push(table(rows), '');
  }
  return out.join('\n');
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd()).join('\n');
}

function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function formatMs(n: number): string {
  return Number.isNaN(n) ? '-' : n.toFixed(0);
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
