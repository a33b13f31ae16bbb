// Upstream TestScaleBounds (2020) rows that survive typed configuration, and applyBounds.
import { describe, expect, it } from 'vitest';
import { applyBounds, effectiveMinScale, type ScaleBounds } from '../../src/scaler/limit/bounds.js';

describe('effective bounds', () => {
  it.each<{ name: string; bounds: ScaleBounds; want: number }>([
    { name: 'min 1, reachability unset: 1', bounds: { minScale: 1, maxScale: 100 }, want: 1 },
    { name: 'no min: 0', bounds: { minScale: 0, maxScale: 0 }, want: 0 },
    { name: 'min 1, reachable: 1', bounds: { minScale: 1, maxScale: 100, reachability: 'Reachable' }, want: 1 },
    { name: 'min 1, unreachable: 0', bounds: { minScale: 1, maxScale: 100, reachability: 'Unreachable' }, want: 0 },
    { name: 'min 1, reachability unknown: 1', bounds: { minScale: 1, maxScale: 100, reachability: 'Unknown' }, want: 1 },
  ])('$name', ({ bounds, want }) => {
    expect(effectiveMinScale(bounds)).toBe(want);
  });
});

describe('applyBounds', () => {
  it.each<{ name: string; bounds: ScaleBounds; desired: number; want: number }>([
    { name: 'within bounds: unchanged', bounds: { minScale: 1, maxScale: 10 }, desired: 5, want: 5 },
    { name: 'below min: min', bounds: { minScale: 2, maxScale: 10 }, desired: 0, want: 2 },
    { name: 'above max: max', bounds: { minScale: 0, maxScale: 8 }, desired: 10, want: 8 },
    { name: 'max 0 is unbounded', bounds: { minScale: 0, maxScale: 0 }, desired: 1000, want: 1000 },
    { name: 'min wins over max', bounds: { minScale: 5, maxScale: 3 }, desired: 4, want: 5 },
    { name: '-1 with no min becomes 0', bounds: { minScale: 0, maxScale: 0 }, desired: -1, want: 0 },
    { name: 'unreachable ignores min', bounds: { minScale: 2, maxScale: 0, reachability: 'Unreachable' }, desired: 0, want: 0 },
  ])('$name', ({ bounds, desired, want }) => {
    expect(applyBounds(bounds, desired)).toBe(want);
  });
});
