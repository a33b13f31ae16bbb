// The bookkeeping around a target's scale step: wakes and their latency, and re-enqueue instants that collapse and are never lost.
import { describe, expect, it } from 'vitest';
import { trackWake, type WakeInput } from '../../src/scaler/zero/activation-latency.js';

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

