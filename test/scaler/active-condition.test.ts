// Knative's computeActiveCondition truth table (kpa.go), row by row.
import { describe, expect, it } from 'vitest';
import { computeActiveCondition } from '../../src/scaler/settle/active-condition.js';
import type { ScaleBounds } from '../../src/scaler/limit/bounds.js';
import {
  markActivating,
  markActive,
  markInactive,
  type ConditionStatus,
  type TargetConditions,
} from '../../src/scaler/read/conditions.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const BEFORE = NOW - 60_000;

const states: Record<'inactive' | 'activating' | 'active', TargetConditions> = {
  inactive: markInactive({}, BEFORE),
  activating: markActivating({}, BEFORE),
  active: markActive({}, BEFORE),
};

interface Row {
  name: string;
  want: number | 'unknown';
  got: number;
  bounds?: ScaleBounds;
  from: keyof typeof states;
  status: ConditionStatus;
  reason?: string;
}

const rows: Row[] = [
  { name: 'want 0 while inactive: inactive, no traffic', want: 0, got: 1, from: 'inactive', status: 'False', reason: 'NoTraffic' },
  { name: 'want 0 while active: inactive, no traffic', want: 0, got: 1, from: 'active', status: 'False', reason: 'NoTraffic' },
  { name: 'want 0 while activating: inactive, timed out', want: 0, got: 0, from: 'activating', status: 'False', reason: 'TimedOut' },
  { name: 'want > 0, got below min, inactive: activating', want: 2, got: 0, from: 'inactive', status: 'Unknown', reason: 'Queued' },
  { name: 'want > 0, got below min, active: activating', want: 2, got: 0, from: 'active', status: 'Unknown', reason: 'Queued' },
  { name: 'want > 0, got at min, inactive: active', want: 2, got: 1, from: 'inactive', status: 'True' },
  { name: 'want > 0, got at min, activating: active', want: 2, got: 1, from: 'activating', status: 'True' },
  { name: 'want unknown, got below min, inactive: stays inactive', want: 'unknown', got: 0, from: 'inactive', status: 'False' },
  { name: 'want unknown, got below min, activating: activating', want: 'unknown', got: 0, from: 'activating', status: 'Unknown' },
  { name: 'want unknown, got below min, active: activating', want: 'unknown', got: 0, from: 'active', status: 'Unknown' },
  { name: 'want unknown, got at min, inactive: stays inactive', want: 'unknown', got: 1, from: 'inactive', status: 'False' },
  { name: 'want unknown, got at min, activating: active', want: 'unknown', got: 1, from: 'activating', status: 'True' },
  { name: 'want unknown, got at min, active: active', want: 'unknown', got: 1, from: 'active', status: 'True' },
  {
    name: 'min 3 is the threshold: 2 ready of want 5 is still activating',
    want: 5, got: 2, bounds: { minScale: 3, maxScale: 0 }, from: 'active', status: 'Unknown',
  },
  {
    name: 'min 3 is the threshold: 3 ready of want 5 is active',
    want: 5, got: 3, bounds: { minScale: 3, maxScale: 0 }, from: 'activating', status: 'True',
  },
  {
    name: 'an unreachable target ignores min for the threshold',
    want: 5, got: 1, bounds: { minScale: 3, maxScale: 0, reachability: 'Unreachable' }, from: 'activating', status: 'True',
  },
];

describe('computeActiveCondition', () => {
  it.each(rows)('$name', ({ want, got, bounds, from, status, reason }) => {
    const before = states[from];
    const after = computeActiveCondition(before, { want, got, bounds: bounds ?? { minScale: 0, maxScale: 0 } }, NOW);
    expect(after.active?.status).toBe(status);
    expect(after.ready?.status).toBe(status);
    const unchanged = before.active?.status === status;
    expect(after.active?.lastTransitionTime).toBe(unchanged ? BEFORE : NOW);
    if (reason !== undefined) expect(after.active?.reason).toBe(reason);
  });
});
