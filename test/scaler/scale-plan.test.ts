// The pure scale decision: one row per branch with its reason, the two-step probe protocol and
// decidePatch.
import { describe, expect, it } from 'vitest';
import { markActive, markInactive, initializeConditions } from '../../src/scaler/decide/conditions.js';
import { decidePatch, planScale, type ScaleInput } from '../../src/scaler/decide/plan-scale.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const GRACE = 30_000;
const WINDOW = 60_000;
const TIMEOUT = 20_000;

const base: ScaleInput = {
  desired: 0,
  bounds: { minScale: 0, maxScale: 0 },
  conditions: markInactive({}, NOW - 2 * GRACE),
  settings: { enableScaleToZero: true, stableWindowMs: WINDOW, gracePeriodMs: GRACE, activationTimeoutMs: TIMEOUT },
  activatorSeenSince: null,
  now: NOW,
};

describe('planScale', () => {
  it.each<{ name: string; input: Partial<ScaleInput>; want: object }>([
    {
      name: 'negative desired, not activating: metrics not yet collected, nothing applied',
      input: { desired: -1 },
      want: { scale: -1, apply: false, reason: 'metrics-not-collected' },
    },
    { name: 'nonzero desired: applied', input: { desired: 3 }, want: { scale: 3, apply: true, reason: 'desired-nonzero' } },
    {
      name: 'scale to zero disabled: held at 1',
      input: { settings: { ...base.settings, enableScaleToZero: false } },
      want: { scale: 1, apply: true, reason: 'scale-to-zero-disabled' },
    },
    {
      name: 'activating past the timeout: gives up, 0 applied',
      input: { conditions: initializeConditions({}, NOW - TIMEOUT - 1) },
      want: { scale: 0, apply: true, reason: 'activation-timed-out' },
    },
    {
      name: 'activating within the timeout: -1, re-enqueued after the timeout',
      input: { conditions: initializeConditions({}, NOW - 1) },
      want: { scale: -1, apply: false, requeueAfterMs: [TIMEOUT], reason: 'activating' },
    },
    {
      name: 'active for the whole stable window: 0, not applied',
      input: { conditions: markActive({}, NOW - WINDOW) },
      want: { scale: 0, apply: false, requeueAfterMs: [], reason: 'stable-window-elapsed' },
    },
    {
      name: 'active for part of the stable window: 1, re-enqueued for the rest',
      input: { conditions: markActive({}, NOW - WINDOW + 5_000) },
      want: { scale: 1, apply: true, requeueAfterMs: [5_000], reason: 'stable-window-pending' },
    },
    {
      name: 'inactive past the grace period, probe ok: 0 applied',
      input: { probe: { ok: true } },
      want: { scale: 0, apply: true, reason: 'grace-period-elapsed' },
    },
    {
      name: 'inactive within the grace period, activator in front long enough: 0 applied',
      input: { probe: { ok: true }, conditions: markInactive({}, NOW - 1), activatorSeenSince: NOW - GRACE },
      want: { scale: 0, apply: true, reason: 'activator-backed-for-grace-period' },
    },
    {
      name: 'inactive within the grace period, activator in front for part of it: re-enqueued for the rest',
      input: { probe: { ok: true }, conditions: markInactive({}, NOW - 1), activatorSeenSince: NOW - GRACE + 4_000 },
      want: { scale: 0, apply: false, requeueAfterMs: [4_000], reason: 'grace-period-pending' },
    },
    {
      name: 'inactive, probe failed: async probe offered, nothing applied',
      input: { probe: { ok: false } },
      want: { scale: 0, apply: false, offerAsyncProbe: true, requeueAfterMs: [], reason: 'activator-not-in-path' },
    },
  ])('$name', ({ input, want }) => {
    const step = planScale({ ...base, ...input });
    expect(step.kind).toBe('plan');
    if (step.kind === 'plan') expect(step.plan).toMatchObject(want);
  });

  it('asks for the synchronous probe before deciding an inactive target, and only then', () => {
    expect(planScale(base)).toEqual({ kind: 'probe' });
    expect(planScale({ ...base, conditions: markActive({}, NOW) }).kind).toBe('plan');
  });

  it('does not modify its input', () => {
    const input = structuredClone({ ...base, probe: { ok: true } });
    const copy = structuredClone(input);
    planScale(input);
    expect(input).toEqual(copy);
  });
});

describe('decidePatch', () => {
  it.each([
    { name: 'same as the target: no patch', desired: 3, spec: 3, want: { patch: false, current: 3 } },
    { name: 'different: patch', desired: 0, spec: 3, want: { patch: true, from: 3, to: 0 } },
    { name: 'missing replicas read as 1: no patch for 1', desired: 1, spec: undefined, want: { patch: false, current: 1 } },
    { name: 'missing replicas read as 1: patch from 1', desired: 4, spec: undefined, want: { patch: true, from: 1, to: 4 } },
  ])('$name', ({ desired, spec, want }) => {
    expect(decidePatch(desired, spec)).toEqual(want);
  });
});
