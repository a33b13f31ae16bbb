// The pure scale decision the pipeline takes (planScaleWithin: the desired scale already within
// the bounds, its bounds stage having put it there): one row per branch with its reason, the
// two-step probe protocol and decidePatch.
import { describe, expect, it } from 'vitest';
import { markActive, markInactive, initializeConditions } from '../../src/scaler/read/conditions.js';
import { decidePatch, planScaleWithin, type ScaleInput } from '../../src/scaler/decide/plan-scale.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const GRACE = 30_000;
const WINDOW = 60_000;
const TIMEOUT = 20_000;

const known = (scale: number) => ({ kind: 'known', scale }) as const;
const unknown = { kind: 'unknown' } as const;

const base: ScaleInput = {
  desired: known(0),
  bounds: { minScale: 0, maxScale: 0 },
  conditions: markInactive({}, NOW - 2 * GRACE),
  settings: { enableScaleToZero: true, stableWindowMs: WINDOW, gracePeriodMs: GRACE, activationTimeoutMs: TIMEOUT },
  activatorSeenSince: null,
  currentScale: 1,
  now: NOW,
};

/** The step as the pipeline asks for it: the bounded desired scale, or undefined without a sample. */
const planStep = ({ desired, bounds, ...rest }: ScaleInput) => planScaleWithin(bounds, desired.kind === 'known' ? desired.scale : undefined, rest);

describe('planScaleWithin', () => {
  it.each<{ name: string; input: Partial<ScaleInput>; want: object }>([
    {
      name: 'no sample, not activating: metrics not yet collected, held',
      input: { desired: unknown },
      want: { kind: 'hold', reason: 'metrics-not-collected' },
    },
    {
      name: 'no sample, maxScale below the current scale: held, never lowered',
      input: { desired: unknown, currentScale: 8, bounds: { minScale: 1, maxScale: 3 }, conditions: markActive({}, NOW - 1) },
      want: { kind: 'hold', reason: 'metrics-not-collected' },
    },
    {
      name: 'no sample, minScale above the current scale: raised to it',
      input: { desired: unknown, currentScale: 1, bounds: { minScale: 3, maxScale: 0 } },
      want: { kind: 'apply', scale: 3, reason: 'raised-to-lower-bound' },
    },
    {
      name: 'no sample, scale to zero disabled, at 0: raised to 1',
      input: { desired: unknown, currentScale: 0, settings: { ...base.settings, enableScaleToZero: false } },
      want: { kind: 'apply', scale: 1, reason: 'raised-to-lower-bound' },
    },
    {
      name: 'no sample, activating past the timeout: held, not scaled to zero',
      input: { desired: unknown, conditions: initializeConditions({}, NOW - TIMEOUT - 1) },
      want: { kind: 'hold', requeueAfterMs: [], reason: 'activation-timed-out-without-samples' },
    },
    {
      name: 'no sample, activating within the timeout: held, re-enqueued after the timeout',
      input: { desired: unknown, conditions: initializeConditions({}, NOW - 1) },
      want: { kind: 'hold', requeueAfterMs: [TIMEOUT], reason: 'activating' },
    },
    {
      name: 'scale to zero disabled, inactive at 0 with a sample of 0: raised to 1',
      input: { currentScale: 0, settings: { ...base.settings, enableScaleToZero: false } },
      want: { kind: 'apply', scale: 1, reason: 'scale-to-zero-disabled' },
    },
    {
      name: 'inactive at 0 with a sample of 0: nothing to probe or write',
      input: { currentScale: 0 },
      want: { kind: 'report', scale: 0, reason: 'already-at-zero' },
    },
    { name: 'nonzero desired: applied', input: { desired: known(3) }, want: { kind: 'apply', scale: 3, reason: 'desired-nonzero' } },
    {
      name: 'scale to zero disabled: held at 1',
      input: { settings: { ...base.settings, enableScaleToZero: false } },
      want: { kind: 'apply', scale: 1, reason: 'scale-to-zero-disabled' },
    },
    {
      name: 'activating past the timeout: gives up, 0 applied',
      input: { conditions: initializeConditions({}, NOW - TIMEOUT - 1) },
      want: { kind: 'apply', scale: 0, reason: 'activation-timed-out' },
    },
    {
      name: 'activating within the timeout: held, re-enqueued after the timeout',
      input: { conditions: initializeConditions({}, NOW - 1) },
      want: { kind: 'hold', requeueAfterMs: [TIMEOUT], reason: 'activating' },
    },
    {
      name: 'active for the whole stable window: 0, not applied',
      input: { conditions: markActive({}, NOW - WINDOW) },
      want: { kind: 'report', scale: 0, requeueAfterMs: [], reason: 'stable-window-elapsed' },
    },
    {
      name: 'active for part of the stable window: 1, re-enqueued for the rest',
      input: { conditions: markActive({}, NOW - WINDOW + 5_000) },
      want: { kind: 'apply', scale: 1, requeueAfterMs: [5_000], reason: 'stable-window-pending' },
    },
    {
      name: 'inactive past the grace period, probe ok: 0 applied',
      input: { probe: { ok: true } },
      want: { kind: 'apply', scale: 0, reason: 'grace-period-elapsed' },
    },
    {
      name: 'inactive within the grace period, activator in front long enough: 0 applied',
      input: { probe: { ok: true }, conditions: markInactive({}, NOW - 1), activatorSeenSince: NOW - GRACE },
      want: { kind: 'apply', scale: 0, reason: 'activator-backed-for-grace-period' },
    },
    {
      name: 'inactive within the grace period, activator in front for part of it: re-enqueued for the rest',
      input: { probe: { ok: true }, conditions: markInactive({}, NOW - 1), activatorSeenSince: NOW - GRACE + 4_000 },
      want: { kind: 'report', scale: 0, requeueAfterMs: [4_000], reason: 'grace-period-pending' },
    },
    {
      name: 'inactive, probe failed: async probe offered, nothing applied',
      input: { probe: { ok: false } },
      want: { kind: 'report', scale: 0, offerAsyncProbe: true, requeueAfterMs: [], reason: 'activator-not-in-path' },
    },
  ])('$name', ({ input, want }) => {
    const step = planStep({ ...base, ...input });
    expect(step.kind).toBe('plan');
    if (step.kind === 'plan') expect(step.plan).toMatchObject(want);
  });

  it.each<{ name: string; conditions: ScaleInput['conditions'] }>([
    { name: 'Active True but Ready missing', conditions: { active: { status: 'True', lastTransitionTime: NOW - 2 * WINDOW } } },
    {
      name: 'Active True but Ready False',
      conditions: { active: { status: 'True', lastTransitionTime: NOW - 2 * WINDOW }, ready: { status: 'False', lastTransitionTime: NOW - 2 * WINDOW } },
    },
    { name: 'no conditions at all (not activating)', conditions: {} },
  ])('$name takes the inactive branch and probes', ({ conditions }) => {
    expect(planStep({ ...base, conditions })).toEqual({ kind: 'probe' });
    const step = planStep({ ...base, conditions, probe: { ok: true }, activatorSeenSince: NOW });
    expect(step).toMatchObject({ kind: 'plan', plan: { kind: 'report', scale: 0, requeueAfterMs: [GRACE], reason: 'grace-period-pending' } });
  });

  it('asks for the synchronous probe before deciding an inactive target, and only then', () => {
    expect(planStep(base)).toEqual({ kind: 'probe' });
    expect(planStep({ ...base, conditions: markActive({}, NOW) }).kind).toBe('plan');
  });

  it('does not modify its input', () => {
    const input = structuredClone({ ...base, probe: { ok: true } });
    const copy = structuredClone(input);
    planStep(input);
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
