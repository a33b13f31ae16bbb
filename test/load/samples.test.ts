// Samples: what a window reads, what is kept, push gauges and their storage form.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SampleWindow } from '../../src/load/sample-window.js';
import { decodeSamples, encodeSamples, windowAverage, type Sample } from '../../src/load/samples.js';

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

/** The sample store as it was before the ring: copy and sort on every add. The reference the window must match. */
const reference = {
  latest(samples: readonly Sample[]): Sample | undefined {
    let latest: Sample | undefined;
    for (const x of samples) if (!latest || x.at >= latest.at) latest = x;
    return latest;
  },
  average(samples: readonly Sample[], now: number, windowMs: number, hold: boolean): number | undefined {
    const inWindow = samples.filter((x) => x.at > now - windowMs && x.at <= now);
    if (inWindow.length > 0) return inWindow.reduce((sum, x) => sum + x.value, 0) / inWindow.length;
    return hold ? reference.latest(samples.filter((x) => x.at <= now))?.value : undefined;
  },
  add(samples: readonly Sample[], sample: Sample, gauge: boolean): Sample[] {
    if (gauge && reference.latest(samples)?.value === sample.value) return [...samples];
    return [...samples, sample].sort((a, b) => a.at - b.at);
  },
  retain(samples: readonly Sample[], now: number, keepMs: number, maxCount: number): Sample[] {
    const sorted = [...samples].sort((a, b) => a.at - b.at);
    const newest = sorted.at(-1);
    const kept = sorted.filter((x) => x.at > now - keepMs || x === newest);
    return kept.slice(Math.max(0, kept.length - maxCount));
  },
};

describe('SampleWindow', () => {
  it('a push equal to the gauge is no new sample, so a redelivered message counts once', () => {
    const w = new SampleWindow();
    expect(w.add(NOW, 25, true)).toBe(true);
    expect(w.add(NOW + 500, 25, true)).toBe(false);
    expect(w.add(NOW + 500, 30, true)).toBe(true);
    expect(w.size).toBe(2);
  });

  it('readings of a sampled source all count, equal or not', () => {
    const w = SampleWindow.from([{ at: NOW, value: 3 }]);
    w.add(NOW + 1, 3, false);
    expect(w.size).toBe(2);
  });

  it('keeps the window and the newest sample, drops the rest', () => {
    const w = SampleWindow.from([s(5_000, 1), s(3_000, 2), s(500, 3)]);
    w.prune(NOW, 1_000);
    expect(w.toArray()).toEqual([s(500, 3)]);
    const old = SampleWindow.from([s(5_000, 1), s(3_000, 2)]);
    old.prune(NOW, 1_000);
    expect(old.toArray()).toEqual([s(3_000, 2)]);
  });

  it('is bounded in count, newest kept, and a late sample older than all of a full ring is the one dropped', () => {
    const w = new SampleWindow(10);
    for (let i = 0; i < 50; i++) w.add(NOW - 50 + i, i, false);
    expect(w.size).toBe(10);
    expect(w.newestValue).toBe(49);
    w.add(NOW - 1_000, -1, false);
    expect(w.toArray().map((x) => x.value)).toEqual([40, 41, 42, 43, 44, 45, 46, 47, 48, 49]);
  });

  it('a sample arriving out of order is moved into place', () => {
    const w = SampleWindow.from([s(30, 1), s(10, 3)]);
    w.add(NOW - 20, 2, false);
    expect(w.toArray().map((x) => x.value)).toEqual([1, 2, 3]);
  });

  it('adds, prunes and averages as the copy-and-sort store did (property)', () => {
    const step = fc.record({
      dt: fc.integer({ min: -3_000, max: 20_000 }),
      value: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.double({ min: 0, max: 1_000, noNaN: true })),
      gauge: fc.boolean(),
      prune: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), fc.integer({ min: 1, max: 90_000 }), fc.integer({ min: 1, max: 30 }), fc.boolean(), (steps, windowMs, capacity, hold) => {
        const w = new SampleWindow(capacity);
        let ref: Sample[] = [];
        let now = NOW;
        for (const st of steps) {
          now += st.dt;
          w.add(now, st.value, st.gauge);
          // The old store bounded the count when it retained; the ring bounds it on every add.
          ref = reference.retain(reference.add(ref, { at: now, value: st.value }, st.gauge), now, Infinity, capacity);
          if (st.prune) {
            w.prune(now, windowMs);
            ref = reference.retain(ref, now, windowMs, capacity);
          }
          expect(w.toArray()).toEqual(ref);
          for (const probeAt of [now, now - windowMs / 3, now + windowMs / 2]) {
            expect(w.average(probeAt, windowMs, hold)).toBe(reference.average(ref, probeAt, windowMs, hold));
          }
        }
      }),
      { numRuns: 300 },
    );
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
