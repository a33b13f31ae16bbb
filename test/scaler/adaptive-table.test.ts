// The adaptive policy's rules as tables (src/scaler/recommend/adaptive.ts): each row an input and
// its hand-computed answer, side by side.
import { describe, expect, it } from 'vitest';
import {
  adaptiveScale,
  evidenceWindowMs,
  headroomFor,
  MAX_STARTUP_DELAY_MS,
  observeStartup,
  recentLevel,
  recordLoadMinute,
  startupDelayOf,
  type LoadMinutes,
  type StartupState,
} from '../../src/scaler/recommend/adaptive.js';

const MIN = 60_000;

describe('StartupDelay: learned from the raises', () => {
  const rows: { name: string; state: StartupState; seen: { scale: number; ready: number }; planned: number; now: number; want: StartupState }[] = [
    { name: 'a raise above the scale and the ready count is watched from now', state: { observed: [] }, seen: { scale: 2, ready: 2 }, planned: 5, now: 10 * MIN, want: { pending: { at: 10 * MIN, to: 5 }, observed: [] } },
    { name: 'a plan that keeps the scale watches nothing', state: { observed: [] }, seen: { scale: 2, ready: 2 }, planned: 2, now: 10 * MIN, want: { observed: [] } },
    { name: 'the ready count reaching the raise records the time it took', state: { pending: { at: 0, to: 5 }, observed: [] }, seen: { scale: 5, ready: 5 }, planned: 5, now: 4 * MIN, want: { observed: [4 * MIN] } },
    { name: 'a raise still short of ready keeps being watched', state: { pending: { at: 0, to: 5 }, observed: [] }, seen: { scale: 5, ready: 3 }, planned: 6, now: 2 * MIN, want: { pending: { at: 0, to: 5 }, observed: [] } },
    { name: 'a raise the plan no longer asks for is dropped unrecorded', state: { pending: { at: 0, to: 5 }, observed: [MIN] }, seen: { scale: 5, ready: 3 }, planned: 3, now: 2 * MIN, want: { observed: [MIN] } },
    { name: 'a raise that never completes counts as the longest delay', state: { pending: { at: 0, to: 5 }, observed: [] }, seen: { scale: 5, ready: 1 }, planned: 5, now: 45 * MIN, want: { observed: [MAX_STARTUP_DELAY_MS] } },
    { name: 'only the latest five delays are kept', state: { pending: { at: 0, to: 2 }, observed: [1, 2, 3, 4, 5] }, seen: { scale: 2, ready: 2 }, planned: 2, now: 6, want: { observed: [2, 3, 4, 5, 6] } },
  ];
  it.each(rows)('$name', ({ state, seen, planned, now, want }) => {
    expect(observeStartup(state, seen, planned, now)).toEqual(want);
  });

  it.each([
    { name: 'two observations leave the default', observed: [4 * MIN, 5 * MIN], want: { ms: 3 * MIN, from: 'default' } },
    { name: 'three make it learned: the longest of them', observed: [4 * MIN, 6 * MIN, 5 * MIN], want: { ms: 6 * MIN, from: 'learned' } },
    { name: 'pods faster than the default learn a shorter delay', observed: [10_000, 12_000, 11_000], want: { ms: 12_000, from: 'learned' } },
  ])('$name', ({ observed, want }) => {
    expect(startupDelayOf({ observed }, 3 * MIN)).toEqual(want);
  });
});

describe('Headroom and ScaleDownEvidence', () => {
  it('the minutes keep the highest load of each minute, two hours at most', () => {
    let h: LoadMinutes = [];
    h = recordLoadMinute(h, 0, 10);
    h = recordLoadMinute(h, 30_000, 14);
    h = recordLoadMinute(h, 45_000, 12);
    h = recordLoadMinute(h, MIN, 3);
    expect(h).toEqual([[0, 14], [1, 3]]);
    expect(recordLoadMinute(h, 121 * MIN, 7)).toEqual([[121, 7]]);
  });

  it('the level held is the highest minute of the evidence window', () => {
    const h: LoadMinutes = [[0, 50], [1, 20], [2, 30], [3, 10]];
    expect(recentLevel(h, 2 * MIN, 3 * MIN)).toBe(30);
    expect(recentLevel(h, 4 * MIN, 3 * MIN)).toBe(50);
  });

  const series = (values: number[]): LoadMinutes => values.map((v, i) => [i, v] as const);
  it.each([
    { name: 'a flat load needs no headroom', values: [10, 10, 10, 10, 10], delay: MIN, window: MIN, budget: 1, want: 0 },
    { name: 'fewer than two rises give none yet', values: [10, 30], delay: MIN, window: MIN, budget: 1, want: 0 },
    // rises above the minute before, within one minute: 10, 0, 10, 0 → sorted 0 0 10 10; 50 % → 5
    { name: 'the budget picks the rise exceeded that share of the minutes', values: [0, 10, 0, 10, 0], delay: MIN, window: MIN, budget: 50, want: 5 },
    // the same series held over two minutes: rises above the window's highest are 10, 0, 0, 0 → 99 % quantile 9.7
    { name: 'a longer evidence window leaves less rise above what is held', values: [0, 10, 0, 10, 0], delay: MIN, window: 2 * MIN, budget: 1, want: 9.7 },
    // within two minutes of 0 the load reaches 10: every rise from the low minutes is 10
    { name: 'a longer start-up delay sees the rise further ahead', values: [0, 0, 10, 0, 0], delay: 2 * MIN, window: MIN, budget: 50, want: 5 },
  ])('$name', ({ values, delay, window, budget, want }) => {
    expect(headroomFor(series(values), delay, window, budget)).toBeCloseTo(want, 9);
  });

  it.each([
    { name: 'load alone asks for more: it stands', replicas: 9, load: { now: 80, level: 80, headroom: 0 }, want: { replicas: 9 } },
    { name: 'the headroom above the load raises it', replicas: 4, load: { now: 40, level: 40, headroom: 15 }, want: { replicas: 6, boundBy: 'Headroom' } },
    { name: 'a higher minute still in the window holds it up', replicas: 2, load: { now: 20, level: 60, headroom: 5 }, want: { replicas: 7, boundBy: 'ScaleDownEvidence' } },
  ])('$name', ({ replicas, load, want }) => {
    expect(adaptiveScale(replicas, load, 10)).toEqual(want);
  });

  it.each([
    { name: 'VMs created in 3 minutes wait 9 before a fall', delay: 3 * MIN, stable: MIN, want: 9 * MIN },
    { name: 'pods ready in 10 s still wait the stable window', delay: 10_000, stable: MIN, want: MIN },
  ])('$name', ({ delay, stable, want }) => {
    expect(evidenceWindowMs(delay, stable)).toBe(want);
  });
});
