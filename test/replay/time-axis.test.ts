import { describe, expect, it } from 'vitest';
import { TIME_INCREMENTS, timeTickLabels } from '../../src/replay/time-axis.js';

describe('the replay report time axis', () => {
  it.each([
    { what: 'ticks seconds apart show seconds', splits: [0, 10, 20], step: 10, labels: ['00:00:00', '00:00:10', '00:00:20'] },
    { what: 'ticks minutes apart show hours and minutes', splits: [0, 120, 240], step: 120, labels: ['00:00', '00:02', '00:04'] },
    { what: 'afternoon times are 24-hour', splits: [13 * 3600 + 5 * 60], step: 300, labels: ['13:05'] },
    { what: 'ticks a day apart show dates', splits: [Date.UTC(2026, 10, 30) / 1000], step: 86_400, labels: ['2026-11-30'] },
  ])('$what', ({ splits, step, labels }) => {
    expect(timeTickLabels(splits, step)).toEqual(labels);
  });

  it('steps up from a second to a week, each a whole number of the unit below', () => {
    expect(TIME_INCREMENTS[0]).toBe(1);
    expect(TIME_INCREMENTS.at(-1)).toBe(604_800);
    for (let i = 1; i < TIME_INCREMENTS.length; i++) expect(TIME_INCREMENTS[i]!).toBeGreaterThan(TIME_INCREMENTS[i - 1]!);
    for (const step of TIME_INCREMENTS) expect(step < 60 ? 60 % step : step < 3600 ? step % 60 : step % 3600).toBe(0);
  });
});
