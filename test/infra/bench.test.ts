import { describe, expect, it } from 'vitest';
import { median } from '../../bench/cold-start.js';
import { formatFigures, loadBenchmarks, type Benchmark } from '../../bench/index.js';

describe('median', () => {
  it.each([
    { name: 'an odd count takes the middle value', values: [9, 1, 5], want: 5 },
    { name: 'an even count averages the two middle values', values: [4, 1, 3, 10], want: 3.5 },
    { name: 'one value is its own median', values: [7], want: 7 },
  ])('$name', ({ values, want }) => {
    expect(median(values)).toBe(want);
  });

  it('refuses no values', () => {
    expect(() => median([])).toThrow(/median of nothing/);
  });
});

describe('the benchmark runner', () => {
  const bench: Benchmark = { name: 'demo', description: 'what it measures', run: () => Promise.resolve([]) };

  it('prints one aligned line per figure, with the precision its size deserves', () => {
    const text = formatFigures(bench, [
      { label: 'whole', value: 855, unit: 'files' },
      { label: 'large fraction', value: 123.456, unit: 'ms' },
      { label: 'fraction', value: 54.73, unit: 'µs' },
      { label: 'small', value: 4.351, unit: '×' },
    ]);
    expect(text).toBe(
      ['demo: what it measures', '  whole           855 files', '  large fraction  123 ms', '  fraction        54.7 µs', '  small           4.35 ×'].join('\n'),
    );
  });

  it('loads every listed module as a benchmark with a distinct name', async () => {
    const all = await loadBenchmarks();
    expect(all.map((b) => b.name)).toContain('cold-start');
    expect(new Set(all.map((b) => b.name)).size).toBe(all.length);
    for (const b of all) expect(typeof b.run).toBe('function');
  });
});
