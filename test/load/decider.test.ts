// Desired scale from load: window averaging, rounding, -1 without a sample, Knative's rate
// limits and panic mode, and the bounds the scaler applies on top.
import { describe, expect, it } from 'vitest';
import { decideDesiredScale, type DeciderSettings, type DesiredInput, type DesiredScale } from '../../src/load/decider.js';
import type { Sample } from '../../src/load/samples.js';
import { markActive } from '../../src/scaler/read/conditions.js';
import { conditionFields } from '../../src/scaler/read/target-record.js';
import { planTarget } from '../../src/scaler/decide/plan-target.js';
import { push, settingsOf } from '../scaler/plan-driver.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const WINDOW = 60_000;
const at = (secondsAgo: number, value: number): Sample => ({ at: NOW - secondsAgo * 1000, value });

const settings: DeciderSettings = {
  targetPerReplica: 10,
  stableWindowMs: WINDOW,
  maxScaleUpRate: 1000,
  maxScaleDownRate: 2,
  panic: { enabled: false, windowMs: 6_000, thresholdPercent: 200 },
};
// Cases give the samples as stored, and whether the source is a gauge.
type CaseInput = Omit<DesiredInput, 'samples'> & { samples: Sample[]; holdLatest: boolean };
const base: CaseInput = { samples: [], holdLatest: false, readyReplicas: 3, panic: undefined, settings, now: NOW };
const decide = (input: CaseInput) => decideDesiredScale(input);
const desiredOf = (got: DesiredScale) => (got.kind === 'known' ? got.desired : 'unknown');
const DESIRED_UNKNOWN = 'unknown';

describe('decideDesiredScale', () => {
  it.each<{ name: string; input: Partial<CaseInput>; desired: number | 'unknown'; limitedBy?: string }>([
    { name: 'no sample at all: -1', input: {}, desired: DESIRED_UNKNOWN },
    { name: 'samples only before the window (a source that stopped answering): -1', input: { samples: [at(61, 50), at(90, 50)] }, desired: 'unknown' },
    { name: 'a sample exactly one window old is outside it: -1', input: { samples: [at(60, 50)] }, desired: 'unknown' },
    { name: 'a push gauge older than the window still holds its value', input: { samples: [at(600, 25)], holdLatest: true, readyReplicas: 0 }, desired: 3 },
    { name: 'a push gauge never pushed: -1', input: { holdLatest: true }, desired: 'unknown' },
    { name: 'average of the samples in the window, rounded up: (20+25)/2=22.5 → 3', input: { samples: [at(10, 20), at(5, 25), at(70, 500)] }, desired: 3 },
    { name: 'an exact multiple needs no extra replica: 30 → 3', input: { samples: [at(1, 30)] }, desired: 3 },
    { name: 'float noise does not add a replica: 0.15 with target 0.05 → 3', input: { samples: [at(2, 0.1), at(1, 0.2)], settings: { ...settings, targetPerReplica: 0.05 } }, desired: 3 },
    { name: 'no load: 0 within the rate limit (ready 1)', input: { samples: [at(1, 0)], readyReplicas: 1 }, desired: 0 },
    { name: 'no load from 3 ready: max scale-down rate 2 stops at 1', input: { samples: [at(1, 0)] }, desired: 1, limitedBy: 'maxScaleDownRate' },
    { name: 'no load from 10 ready: stops at 5', input: { samples: [at(1, 0)], readyReplicas: 10 }, desired: 5, limitedBy: 'maxScaleDownRate' },
    { name: 'a burst from zero ready counts one ready replica: rate 2 allows 2', input: { samples: [at(1, 250)], readyReplicas: 0, settings: { ...settings, maxScaleUpRate: 2 } }, desired: 2, limitedBy: 'maxScaleUpRate' },
    { name: 'up rate 1.5 from 3 ready: ceil(4.5) = 5', input: { samples: [at(1, 250)], settings: { ...settings, maxScaleUpRate: 1.5 } }, desired: 5, limitedBy: 'maxScaleUpRate' },
    { name: 'load 25, target 10, nothing ready: 3 at once', input: { samples: [at(0, 25)], readyReplicas: 0 }, desired: 3 },
  ])('$name', ({ input, desired, limitedBy }) => {
    const got = decide({ ...base, ...input });
    expect(desiredOf(got)).toBe(desired);
    expect(got.kind === 'known' ? got.limitedBy : undefined).toBe(limitedBy);
  });
});

describe('panic mode', () => {
  const panicking = { ...settings, panic: { enabled: true, windowMs: 6_000, thresholdPercent: 200 } };
  // Stable window: 10 old samples of 10 and a fresh 80 → average ≈ 16.4 → 2; panic window: 80 → 8.
  const surge = [...Array.from({ length: 10 }, (_, i) => at(50 - i, 10)), at(1, 80)];

  it.each<{ name: string; input: Partial<CaseInput>; desired: number; panicking: boolean }>([
    { name: 'off by default: the stable window alone decides', input: { samples: surge, readyReplicas: 2 }, desired: 2, panicking: false },
    { name: 'the panic window asking for 400 % of ready starts a panic and its answer wins', input: { samples: surge, readyReplicas: 2, settings: panicking }, desired: 8, panicking: true },
    { name: 'below the threshold (8 of 5 ready = 160 %): no panic, the stable answer', input: { samples: surge, readyReplicas: 5, settings: panicking }, desired: 2, panicking: false },
    {
      name: 'while panicking no decrease applies: the highest answer holds',
      input: { samples: [at(30, 10), at(1, 10)], readyReplicas: 8, settings: panicking, panic: { startedAt: NOW - 10_000, lastOverAt: NOW - 10_000, maxScale: 8 } },
      desired: 8,
      panicking: true,
    },
    {
      name: 'a stable window after the last surge the panic ends',
      input: { samples: [at(30, 10), at(1, 10)], readyReplicas: 8, settings: panicking, panic: { startedAt: NOW - 70_000, lastOverAt: NOW - 61_000, maxScale: 8 } },
      desired: 4,
      panicking: false,
    },
  ])('$name', ({ input, desired, panicking: wantPanic }) => {
    const got = decide({ ...base, ...input });
    expect(desiredOf(got)).toBe(desired);
    expect(got.panic !== undefined).toBe(wantPanic);
  });

  it('a metric outage keeps the panic as it was', () => {
    const panic = { startedAt: NOW - 5_000, lastOverAt: NOW - 5_000, maxScale: 6 };
    expect(decide({ ...base, settings: panicking, panic })).toMatchObject({ kind: 'unknown', panic });
  });
});

describe('bounds on the desired scale (applied by the production plan, planTarget)', () => {
  it.each<{ name: string; desired: number | 'unknown'; minScale: number; maxScale: number; scale: number | 'held' }>([
    { name: 'above max: max', desired: 12, minScale: 0, maxScale: 5, scale: 5 },
    { name: 'max 0 is unbounded', desired: 12, minScale: 0, maxScale: 0, scale: 12 },
    { name: 'below min: min', desired: 1, minScale: 2, maxScale: 5, scale: 2 },
    { name: 'min wins over max', desired: 1, minScale: 5, maxScale: 3, scale: 5 },
    { name: 'no sample, within the bounds: held, nothing is decided without metrics', desired: 'unknown', minScale: 2, maxScale: 5, scale: 'held' },
    { name: 'no sample, above max: held, never lowered without metrics', desired: 'unknown', minScale: 0, maxScale: 2, scale: 'held' },
    { name: 'no sample, below min: raised to min', desired: 'unknown', minScale: 6, maxScale: 0, scale: 6 },
  ])('$name', ({ desired, minScale, maxScale, scale }) => {
    const settings = settingsOf(push(1));
    // An active target at 3, its window's average the desired scale (one a replica), or no sample at all.
    const plan = planTarget(
      {
        kind: 'kubernetes',
        record: { ...conditionFields(markActive({}, NOW - 1_000)), requestedScale: 3 },
        view: { kind: 'read', observed: { specReplicas: 3, ready: 3 } },
        samples: { average: () => (desired === 'unknown' ? undefined : desired) },
        holdLatest: false,
        dryRun: false,
      },
      { ...settings, bounds: { minScale, maxScale } },
      NOW,
    );
    expect(plan.kind === 'plan' && (plan.decided.plan.kind === 'hold' ? 'held' : plan.decided.plan.scale)).toBe(scale);
  });
});
