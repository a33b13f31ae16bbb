// The replay's timeline: a row per change, and the HTML's downsampling that keeps spikes.
import { describe, expect, it } from 'vitest';
import { downsample } from '../../src/replay/html.js';
import { Timeline } from '../../src/replay/timeline.js';
import { decisionLines } from '../../src/replay/timeline-text.js';

describe('Timeline', () => {
  it('records a row only when something changed; a change in the same instant replaces the row', () => {
    const t = new Timeline();
    t.record(0, 10, undefined, 0, 0);
    t.record(0, 10, 1, 1, 0);
    t.record(1_000, 10, 1, 1, 0);
    t.record(2_000, 10, 1, 1, 1);
    t.record(3_000, 12, 1, 1, 1);
    expect([...t.rows()]).toEqual([
      { at: 0, load: 10, desired: 1, scale: 1, ready: 0 },
      { at: 2_000, load: 10, desired: 1, scale: 1, ready: 1 },
      { at: 3_000, load: 12, desired: 1, scale: 1, ready: 1 },
    ]);
  });

  it('holds hundreds of thousands of rows, each as recorded', () => {
    const t = new Timeline();
    for (let i = 0; i < 100_000; i++) t.record(i * 1_000, i % 7, i % 2 === 0 ? undefined : i % 3, i % 5, i);
    expect(t.length).toBe(100_000);
    for (const i of [0, 1, 16_383, 16_384, 65_537, 99_999]) expect(t.row(i)).toEqual({ at: i * 1_000, load: i % 7, desired: i % 2 === 0 ? undefined : i % 3, scale: i % 5, ready: i });
  });

  it('a change undone within its instant leaves no row', () => {
    const t = new Timeline();
    t.record(0, 1, 1, 1, 1);
    t.record(5, 2, 1, 1, 1);
    t.record(5, 1, 1, 1, 1);
    expect(t.length).toBe(1);
  });
});

describe('what bound each decision', () => {
  it('is kept with the row, and a change of the rule alone is a row of its own', () => {
    const t = new Timeline();
    t.record(0, 50, 5, 2, 2, 'ScaleUpLimit');
    t.record(1_000, 50, 5, 2, 2, 'ScaleUpLimit');
    t.record(2_000, 50, 5, 2, 2);
    t.record(3_000, 50, 5, 2, 2, 'Paused');
    expect([...t.rows()]).toEqual([
      { at: 0, load: 50, desired: 5, scale: 2, ready: 2, boundBy: 'ScaleUpLimit' },
      { at: 2_000, load: 50, desired: 5, scale: 2, ready: 2 },
      { at: 3_000, load: 50, desired: 5, scale: 2, ready: 2, boundBy: 'Paused' },
    ]);
    expect(t.row(1).boundBy).toBeUndefined();
  });

  it('decision lines skip rows where only the load or the ready replicas changed', () => {
    const t = new Timeline();
    t.record(0, 50, 5, 5, 0);
    t.record(5_000, 50, 5, 5, 5);
    t.record(10_000, 20, 5, 5, 5);
    t.record(60_000, 20, 2, 5, 5, 'ScaleDownStabilized');
    expect([...decisionLines([t])].map((l) => [l.at, l.load, l.sides[0]?.boundBy])).toEqual([[0, 50, undefined], [60_000, 20, 'ScaleDownStabilized']]);
  });

  it('two timelines merge on time: a line when either side changed, each side as it stood then', () => {
    const a = new Timeline();
    const b = new Timeline();
    a.record(0, 50, 5, 5, 5);
    b.record(0, 50, 5, 1, 1, 'ScaleUpLimit');
    b.record(30_000, 50, 5, 2, 2, 'ScaleUpLimit');
    a.record(40_000, 0, 2, 2, 2, 'ScaleDownLimit');
    const lines = [...decisionLines([a, b])].map((l) => [l.at, l.load, ...l.sides.map((s) => `${s?.scale} ${s?.boundBy ?? '-'}`)]);
    expect(lines).toEqual([
      [0, 50, '5 -', '1 ScaleUpLimit'],
      [30_000, 50, '5 -', '2 ScaleUpLimit'],
      [40_000, 0, '2 ScaleDownLimit', '2 ScaleUpLimit'],
    ]);
  });
});

describe('downsample', () => {
  it('keeps the highest value of each interval (a one-second spike survives), the lowest when asked', () => {
    const t = new Timeline();
    t.record(0, 1, 1, 1, 1);
    t.record(4_000, 90, 9, 9, 0);
    t.record(5_000, 1, 1, 1, 1);
    const grid = [0, 10_000, 20_000];
    expect(downsample(t, 'load', grid)).toEqual([90, 1, 1]);
    expect(downsample(t, 'ready', grid, 'min')).toEqual([0, 1, 1]);
  });

  it('an unknown desired scale inside an interval does not hide the known ones', () => {
    const t = new Timeline();
    t.record(0, 1, 4, 4, 4);
    t.record(2_000, 1, undefined, 4, 4);
    expect(downsample(t, 'desired', [0, 10_000])).toEqual([4, null]);
  });

  it('nothing before the first row', () => {
    const t = new Timeline();
    t.record(10_000, 3, 1, 1, 1);
    expect(downsample(t, 'load', [0, 5_000, 10_000])).toEqual([null, null, 3]);
  });
});
