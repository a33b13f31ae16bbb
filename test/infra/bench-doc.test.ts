import { describe, expect, it } from 'vitest';
import { figuresTable, goalsTable, mergeRuns, replaceBetween } from '../../bench/doc-tables.js';
import type { BenchRun } from '../../bench/index.js';

const run = (startedAt: string, results: BenchRun['results'], load = 3): BenchRun => ({
  run: { startedAt, finishedAt: startedAt, node: 'v20.0.0', cores: 2, quick: false, loadAverage: { start: load, max: load + 1, end: load } },
  results,
});

describe('the benchmark tables written from a run', () => {
  const first = run('2026-12-02T01:00:00.000Z', {
    pool: [
      { label: 'cold | requests', value: 12.345, unit: 'requests', goal: 15 },
      { label: 'warm CPU', value: 157, unit: 'ms' },
    ],
    rows: [{ label: 'per row', value: 0.56, unit: 'µs' }],
  });
  const later = run('2026-12-02T02:00:00.000Z', { pool: [{ label: 'cold | requests', value: 30, unit: 'requests', goal: 15 }] }, 9);

  it('lists every figure with its goal and ratio, and says when and under what load each benchmark ran', () => {
    expect(figuresTable(mergeRuns([first]))).toBe(
      [
        '| benchmark | figure | value | goal | ratio |',
        '| --- | --- | --- | --- | --- |',
        '| pool | cold \\| requests | 12.3 requests | ≤ 15 | 0.82 (met) |',
        '| pool | warm CPU | 157 ms |  |  |',
        '| rows | per row | 0.56 µs |  |  |',
        '',
        'Measured 2026-12-02 01:00 UTC, 2 cores, Node v20.0.0, load average 3.0 → 3.0 (max 4.0): pool, rows.',
      ].join('\n'),
    );
  });

  it('takes a later run of one benchmark over an earlier one, leaving the others', () => {
    const merged = mergeRuns([first, later]);
    expect(goalsTable(merged)).toBe(['| figure | measured | goal | ratio |', '| --- | --- | --- | --- |', '| cold \\| requests | 30 requests | ≤ 15 | 2 (not met) |'].join('\n'));
    expect(figuresTable(merged)).toContain('| rows | per row | 0.56 µs |');
    expect(figuresTable(merged)).toContain('load average 9.0 → 9.0 (max 10.0): pool.');
  });

  it('replaces only what lies between its markers, and refuses a document without them', () => {
    const doc = 'intro\n<!-- bench:goals -->\nold\n<!-- /bench:goals -->\nafter\n';
    expect(replaceBetween(doc, 'goals', 'new')).toBe('intro\n<!-- bench:goals -->\nnew\n<!-- /bench:goals -->\nafter\n');
    expect(() => replaceBetween('no markers', 'goals', 'new')).toThrow(/no <!-- bench:goals -->/);
  });
});
