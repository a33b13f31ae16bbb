// The bookkeeping around a target's scale step: wakes and their latency, the scale set's
// capacity write budget, and re-enqueue instants that collapse and are never lost.
import { describe, expect, it } from 'vitest';
import { trackWake, type WakeInput } from '../../src/scaler/decide/activation.js';
import { checkWriteBudget, decodeWrites, encodeWrites, recordWrite } from '../../src/scaler/decide/capacity-budget.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);

describe('trackWake', () => {
  const base: WakeInput = { pendingSince: undefined, scaleBefore: 0, applying: undefined, observed: undefined, now: NOW };
  it.each<{ name: string; input: Partial<WakeInput>; want: object }>([
    { name: 'nothing asked of a target at zero: idle', input: {}, want: { kind: 'idle' } },
    { name: 'scaling a running target: no wake', input: { scaleBefore: 2, applying: 5 }, want: { kind: 'idle' } },
    { name: 'from zero to 3: a wake starts now', input: { applying: 3 }, want: { kind: 'waking', since: NOW } },
    {
      name: 'from zero, ready seen 2.5 s later by the watch: woke in 2500 ms',
      input: { applying: 3, observed: { ready: 1, at: NOW + 2_500 } },
      want: { kind: 'woke', since: NOW, readyAt: NOW + 2_500, latencyMs: 2_500 },
    },
    {
      name: 'a later reconcile sees the first ready replica',
      input: { pendingSince: NOW - 4_000, scaleBefore: 3, applying: 3, observed: { ready: 2, at: NOW } },
      want: { kind: 'woke', latencyMs: 4_000 },
    },
    { name: 'still nothing ready: waking since the first ask', input: { pendingSince: NOW - 4_000, scaleBefore: 3, observed: { ready: 0, at: NOW } }, want: { kind: 'waking', since: NOW - 4_000 } },
    { name: 'back to zero before a replica was ready: abandoned', input: { pendingSince: NOW - 4_000, scaleBefore: 3, applying: 0 }, want: { kind: 'abandoned' } },
    { name: 'a replica seen before the wake was asked does not count', input: { pendingSince: NOW, scaleBefore: 3, observed: { ready: 1, at: NOW - 1 } }, want: { kind: 'waking' } },
  ])('$name', ({ input, want }) => {
    expect(trackWake({ ...base, ...input })).toMatchObject(want);
  });
});

describe('capacity write budget', () => {
  const minute = 60_000;
  it.each<{ name: string; writes: number[]; want: object }>([
    { name: 'no writes yet: allowed', writes: [], want: { ok: true } },
    { name: 'three in the last minute: allowed', writes: [NOW - 50_000, NOW - 20_000, NOW - 1_000], want: { ok: true } },
    { name: 'four in the last minute: deferred until the oldest is a minute old', writes: [NOW - 50_000, NOW - 30_000, NOW - 20_000, NOW - 1_000], want: { ok: false, retryAt: NOW + 10_000 } },
    { name: 'a write exactly a minute old no longer counts', writes: [NOW - minute, NOW - 30_000, NOW - 20_000, NOW - 1_000], want: { ok: true } },
  ])('$name', ({ writes, want }) => {
    expect(checkWriteBudget(writes, NOW)).toEqual(want);
  });

  it('never allows a fifth write within any minute, however often it is asked', () => {
    let writes: number[] = [];
    const done: number[] = [];
    for (let t = NOW; t < NOW + 5 * minute; t += 1_000) {
      if (checkWriteBudget(writes, t).ok) {
        writes = recordWrite(writes, t);
        done.push(t);
      }
    }
    for (const start of done) expect(done.filter((t) => t >= start && t < start + minute).length).toBeLessThanOrEqual(4);
    expect(done.length).toBe(20);
  });

  it('stores the log as text', () => {
    expect(decodeWrites(encodeWrites([1, 2, 3]))).toEqual([1, 2, 3]);
    expect(decodeWrites(undefined)).toEqual([]);
  });
});

