// Samples: what a window reads, what is kept, push gauges and their storage form.
import { describe, expect, it } from 'vitest';
import { addSample, decodeSamples, encodeSamples, retainSamples, windowAverage, type Sample } from '../../src/load/samples.js';

const NOW = 1_000_000;
const s = (at: number, value: number): Sample => ({ at: NOW - at, value });

describe('windowAverage', () => {
  it.each<{ name: string; samples: Sample[]; hold: boolean; want: number | undefined }>([
    { name: 'empty: undefined', samples: [], hold: false, want: undefined },
    { name: 'mean of the samples inside the window', samples: [s(100, 2), s(200, 4), s(5_000, 100)], hold: false, want: 3 },
    { name: 'a sample in the future is not read', samples: [s(-100, 50), s(100, 2)], hold: false, want: 2 },
    { name: 'nothing in the window, not a gauge: undefined', samples: [s(2_000, 7)], hold: false, want: undefined },
    { name: 'nothing in the window, a gauge: the newest value holds', samples: [s(3_000, 1), s(2_000, 7)], hold: true, want: 7 },
    { name: 'a gauge with pushes in the window: only those count', samples: [s(2_000, 70), s(100, 1), s(50, 3)], hold: true, want: 2 },
  ])('$name', ({ samples, hold, want }) => {
    expect(windowAverage(samples, NOW, 1_000, hold)).toBe(want);
  });
});

describe('addSample and retainSamples', () => {
  it('a push equal to the gauge is no new sample, so a redelivered message counts once', () => {
    const once = addSample([], { at: NOW, value: 25 }, true);
    expect(addSample(once, { at: NOW + 500, value: 25 }, true)).toEqual(once);
    expect(addSample(once, { at: NOW + 500, value: 30 }, true)).toHaveLength(2);
  });

  it('readings of a sampled source all count, equal or not', () => {
    expect(addSample([{ at: NOW, value: 3 }], { at: NOW + 1, value: 3 }, false)).toHaveLength(2);
  });

  it('keeps the window and the newest sample, drops the rest', () => {
    const kept = retainSamples([s(5_000, 1), s(3_000, 2), s(500, 3)], NOW, 1_000);
    expect(kept).toEqual([s(500, 3)]);
    expect(retainSamples([s(5_000, 1), s(3_000, 2)], NOW, 1_000)).toEqual([s(3_000, 2)]);
  });

  it('is bounded in count, newest kept', () => {
    const many = Array.from({ length: 50 }, (_, i) => s(50 - i, i));
    const kept = retainSamples(many, NOW, 1_000, 10);
    expect(kept).toHaveLength(10);
    expect(kept.at(-1)?.value).toBe(49);
  });
});

describe('storage form', () => {
  it('round-trips', () => {
    const samples = [s(2, 1.5), s(1, 0)];
    expect(decodeSamples(encodeSamples(samples))).toEqual(samples);
  });
  it.each(['', 'not json', '{}', '[[1,"x"],[2]]'])('drops unreadable data %j', (text) => {
    expect(decodeSamples(text)).toEqual([]);
  });
});
