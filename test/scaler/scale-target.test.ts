// The upstream TestScaler table (the 25 rows of the 2020 KPA), TestDisableScaleToZero and the
// derived edge cases, run through the scale step with in-memory ports and a fixed `now`.
import { describe, expect, it } from 'vitest';
import type { Reachability } from '../../src/scaler/decide/bounds.js';
import {
  initializeConditions,
  markActive,
  markInactive,
  type TargetConditions,
} from '../../src/scaler/decide/conditions.js';
import type { ScaleToZeroSettings, SyncProbeResult } from '../../src/scaler/decide/scale-to-zero.js';
import { scaleTarget, type ScaleOutcome, type ScaleTargetPorts } from '../../src/scaler/scale-target.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const SECOND = 1000;
const GRACE = 60 * SECOND;
const STABLE_WINDOW = 5 * 60 * SECOND;
const CUSTOM_WINDOW = 45 * SECOND;
// Upstream test deployments have a 121 s progress deadline, plus the 10 s buffer.
const ACTIVATION_TIMEOUT = 131 * SECOND;
// CanScaleToZero is strict and upstream lets a little real time pass between fixture and check.
const JUST_PAST = 1;

const active = (ago: number): TargetConditions => markActive({}, NOW - ago);
const inactive = (ago: number): TargetConditions => markInactive({}, NOW - ago);
const activating = (ago: number): TargetConditions => initializeConditions({}, NOW - ago);

interface Row {
  name: string;
  /** The target's spec replicas; undefined = not set. */
  start: number | undefined;
  scaleTo: number;
  min?: number;
  max?: number;
  reachability?: Reachability;
  conditions?: TargetConditions;
  settings?: Partial<ScaleToZeroSettings>;
  activatorSeenFor?: number;
  probe?: SyncProbeResult;
  want: {
    scale: number;
    patch: [from: number, to: number] | null;
    requeue?: number[];
    asyncOffer?: boolean;
    probed?: boolean;
  };
}

function fakeTarget(start: number | undefined, probe: SyncProbeResult) {
  const calls = { probes: 0, reads: 0, patches: [] as number[] };
  const ports: ScaleTargetPorts = {
    probeActivator: () => {
      calls.probes++;
      return Promise.resolve(probe);
    },
    readScale: () => {
      calls.reads++;
      return Promise.resolve(start === undefined ? {} : { specReplicas: start });
    },
    patchScale: (replicas) => {
      calls.patches.push(replicas);
      return Promise.resolve();
    },
  };
  return { ports, calls };
}

async function run(row: Row) {
  const fake = fakeTarget(row.start, row.probe ?? { ok: true });
  const outcome = await scaleTarget(
    {
      desired: row.scaleTo,
      bounds: { minScale: row.min ?? 0, maxScale: row.max ?? 0, reachability: row.reachability ?? 'Unreachable' },
      conditions: row.conditions ?? activating(0),
      settings: {
        enableScaleToZero: true,
        stableWindowMs: STABLE_WINDOW,
        gracePeriodMs: GRACE,
        activationTimeoutMs: ACTIVATION_TIMEOUT,
        ...row.settings,
      },
      activatorSeenSince: row.activatorSeenFor === undefined ? null : NOW - row.activatorSeenFor,
      now: NOW,
    },
    fake.ports,
  );
  return { outcome, calls: fake.calls };
}

function expectOutcome(outcome: ScaleOutcome, calls: ReturnType<typeof fakeTarget>['calls'], want: Row['want']) {
  if (!outcome.ok) throw new Error(`scale step failed: ${String(outcome.error)}`);
  expect({
    scale: outcome.plan.scale,
    patch: outcome.patch?.patch ? [outcome.patch.from, outcome.patch.to] : null,
    patches: calls.patches,
    requeue: outcome.plan.requeueAfterMs,
    asyncOffer: outcome.plan.offerAsyncProbe,
    probes: calls.probes,
  }).toEqual({
    scale: want.scale,
    patch: want.patch,
    patches: want.patch === null ? [] : [want.patch[1]],
    requeue: want.requeue ?? [],
    asyncOffer: want.asyncOffer ?? false,
    probes: want.probed ? 1 : 0,
  });
}

// Default fixture as upstream: activating since now, revision unreachable, no activator in
// front, and a probe that finds it.
const upstreamRows: Row[] = [
  {
    name: 'waits to scale to zero (just before idle period)',
    start: 1, scaleTo: 0, conditions: active(STABLE_WINDOW - SECOND),
    want: { scale: 1, patch: null, requeue: [SECOND] },
  },
  {
    name: 'waits to scale to zero (just before idle period), custom stable window',
    start: 1, scaleTo: 0, settings: { stableWindowMs: CUSTOM_WINDOW }, conditions: active(CUSTOM_WINDOW - SECOND),
    want: { scale: 1, patch: null, requeue: [SECOND] },
  },
  {
    name: 'custom stable window already passed by the standard window: 0 without a probe',
    start: 1, scaleTo: 0, settings: { stableWindowMs: CUSTOM_WINDOW }, conditions: active(STABLE_WINDOW),
    want: { scale: 0, patch: null },
  },
  {
    name: 'scales to 1 while waiting for the idle period to expire',
    start: 10, scaleTo: 0, conditions: active(STABLE_WINDOW - SECOND),
    want: { scale: 1, patch: [10, 1], requeue: [SECOND] },
  },
  {
    name: 'after the idle period returns 0 without applying it',
    start: 1, scaleTo: 0, conditions: active(STABLE_WINDOW),
    want: { scale: 0, patch: null },
  },
  {
    name: 'after the idle period returns 0 without applying it (custom stable window)',
    start: 1, scaleTo: 0, settings: { stableWindowMs: CUSTOM_WINDOW }, conditions: active(CUSTOM_WINDOW),
    want: { scale: 0, patch: null },
  },
  {
    name: 'scales to zero after the grace period',
    start: 1, scaleTo: 0, conditions: inactive(GRACE + JUST_PAST),
    want: { scale: 0, patch: [1, 0], probed: true },
  },
  {
    name: 'waits to scale to zero just before the grace period, activator not seen: the whole grace period',
    start: 1, scaleTo: 0, conditions: inactive(GRACE - SECOND),
    want: { scale: 0, patch: null, requeue: [GRACE], probed: true },
  },
  {
    name: 'waits to scale to zero just before the grace period, activator in front for 59 s: the last second',
    start: 1, scaleTo: 0, conditions: inactive(GRACE - SECOND), activatorSeenFor: GRACE - SECOND,
    want: { scale: 0, patch: null, requeue: [SECOND], probed: true },
  },
  {
    name: 'scales to zero before the grace period when the activator has been in front for all of it',
    start: 1, scaleTo: 0, conditions: inactive(GRACE - SECOND), activatorSeenFor: GRACE,
    want: { scale: 0, patch: [1, 0], probed: true },
  },
  {
    name: 'does not scale to zero after the grace period when the probe fails: async probe offered',
    start: 1, scaleTo: 0, conditions: inactive(GRACE + JUST_PAST), probe: { ok: false },
    want: { scale: 0, patch: null, asyncOffer: true, probed: true },
  },
  {
    name: 'does not scale to zero after the grace period on a wrong probe answer: async probe offered',
    start: 1, scaleTo: 0, conditions: inactive(GRACE + JUST_PAST), probe: { ok: false },
    want: { scale: 0, patch: null, asyncOffer: true, probed: true },
  },
  {
    name: 'waits while activating until the activation timeout: -1 and a re-enqueue for the timeout',
    start: 1, scaleTo: 0, conditions: activating(ACTIVATION_TIMEOUT / 2),
    want: { scale: -1, patch: null, requeue: [ACTIVATION_TIMEOUT] },
  },
  {
    name: 'scales to zero while activating once the activation timeout is exceeded',
    start: 1, scaleTo: 0, conditions: activating(ACTIVATION_TIMEOUT + SECOND),
    want: { scale: 0, patch: [1, 0] },
  },
  {
    name: 'scales down to minScale before the grace period',
    start: 10, scaleTo: 0, min: 2, reachability: 'Reachable', conditions: inactive(GRACE - SECOND),
    want: { scale: 2, patch: [10, 2] },
  },
  {
    name: 'scales down to minScale after the grace period',
    start: 10, scaleTo: 0, min: 2, reachability: 'Reachable', conditions: inactive(GRACE + JUST_PAST),
    want: { scale: 2, patch: [10, 2] },
  },
  {
    name: 'ignores minScale when unreachable',
    start: 10, scaleTo: 0, min: 2, reachability: 'Unreachable', conditions: inactive(GRACE + JUST_PAST),
    want: { scale: 0, patch: [10, 0], probed: true },
  },
  {
    name: 'observes minScale when reachability is unknown',
    start: 10, scaleTo: 0, min: 2, reachability: 'Unknown', conditions: inactive(GRACE + JUST_PAST),
    want: { scale: 2, patch: [10, 2] },
  },
  { name: 'scales up', start: 1, scaleTo: 10, want: { scale: 10, patch: [1, 10] } },
  { name: 'scales up to maxScale', start: 1, scaleTo: 10, max: 8, want: { scale: 8, patch: [1, 8] } },
  {
    name: 'scales up an inactive target',
    start: 1, scaleTo: 10, conditions: inactive(30 * SECOND),
    want: { scale: 10, patch: [1, 10] },
  },
  {
    name: 'does not scale up from zero with no metrics',
    start: 0, scaleTo: -1, conditions: inactive(0),
    want: { scale: -1, patch: null },
  },
  { name: 'scales up from zero to one', start: 0, scaleTo: 1, want: { scale: 1, patch: [0, 1] } },
  { name: 'scales up from zero to a high scale', start: 0, scaleTo: 10, want: { scale: 10, patch: [0, 10] } },
  {
    name: 'a negative desired scale does not scale an active target',
    start: 12, scaleTo: -1, conditions: active(0),
    want: { scale: -1, patch: null },
  },
];

// Upstream: active since now, reachable, no activator and no probe wired.
const disabled = { reachability: 'Reachable', conditions: active(0), settings: { enableScaleToZero: false } } as const;
const disabledRows: Row[] = [
  { ...disabled, name: 'scale to zero disabled: 0 becomes 1', start: 10, scaleTo: 0, want: { scale: 1, patch: [10, 1] } },
  { ...disabled, name: 'scale to zero disabled: minScale 2 wins', start: 10, scaleTo: 0, min: 2, want: { scale: 2, patch: [10, 2] } },
  { ...disabled, name: 'scale to zero disabled: no metrics, no change', start: 10, scaleTo: -1, want: { scale: -1, patch: null } },
];

const derivedRows: Row[] = [
  {
    name: 'exactly at the grace period is not past it: waits the whole grace period',
    start: 1, scaleTo: 0, conditions: inactive(GRACE),
    want: { scale: 0, patch: null, requeue: [GRACE], probed: true },
  },
  {
    name: 'no metrics while activating, before the timeout: -1, one re-enqueue, no patch',
    start: 1, scaleTo: -1, conditions: activating(ACTIVATION_TIMEOUT / 2),
    want: { scale: -1, patch: null, requeue: [ACTIVATION_TIMEOUT] },
  },
  {
    name: 'no metrics while activating, after the timeout: patched to 0',
    start: 1, scaleTo: -1, conditions: activating(ACTIVATION_TIMEOUT + SECOND),
    want: { scale: 0, patch: [1, 0] },
  },
  {
    name: 'no metrics while activating with minScale 3 (reachable): patched to 3',
    start: 1, scaleTo: -1, min: 3, reachability: 'Reachable', conditions: activating(SECOND),
    want: { scale: 3, patch: [1, 3] },
  },
  {
    name: 'scale to zero disabled ignores an inactive target: patched to 1',
    start: 0, scaleTo: 0, settings: { enableScaleToZero: false }, conditions: inactive(10 * GRACE),
    want: { scale: 1, patch: [0, 1] },
  },
  {
    name: 'Active True but Ready missing takes the inactive branch and probes',
    start: 1, scaleTo: 0, conditions: { active: { status: 'True', lastTransitionTime: NOW - 2 * STABLE_WINDOW } },
    want: { scale: 0, patch: null, requeue: [GRACE], probed: true },
  },
  {
    name: 'Active True but Ready False takes the inactive branch and probes',
    start: 1, scaleTo: 0,
    conditions: {
      active: { status: 'True', lastTransitionTime: NOW - 2 * STABLE_WINDOW },
      ready: { status: 'False', lastTransitionTime: NOW - 2 * STABLE_WINDOW },
    },
    want: { scale: 0, patch: null, requeue: [GRACE], probed: true },
  },
  {
    name: 'no conditions at all is not activating: the inactive branch probes',
    start: 1, scaleTo: 0, conditions: {},
    want: { scale: 0, patch: null, requeue: [GRACE], probed: true },
  },
  {
    name: 'a target without replicas reads as 1: desired 1 is no patch',
    start: undefined, scaleTo: 1,
    want: { scale: 1, patch: null },
  },
  {
    name: 'a target without replicas reads as 1: scaling to zero patches from 1',
    start: undefined, scaleTo: 0, conditions: inactive(GRACE + JUST_PAST),
    want: { scale: 0, patch: [1, 0], probed: true },
  },
  {
    name: 'minScale 5 above maxScale 3: 5',
    start: 1, scaleTo: 2, min: 5, max: 3, reachability: 'Reachable',
    want: { scale: 5, patch: [1, 5] },
  },
  {
    name: 'the activation timeout defaults to 10 m 10 s: still waiting at exactly 10 m 10 s',
    start: 1, scaleTo: 0, settings: { activationTimeoutMs: undefined }, conditions: activating(610 * SECOND),
    want: { scale: -1, patch: null, requeue: [610 * SECOND] },
  },
  {
    name: 'the activation timeout defaults to 10 m 10 s: gives up just past it',
    start: 1, scaleTo: 0, settings: { activationTimeoutMs: undefined }, conditions: activating(610 * SECOND + 1),
    want: { scale: 0, patch: [1, 0] },
  },
];

describe('scale step (upstream TestScaler, 2020)', () => {
  it('has the 25 rows of the 2020 table', () => {
    expect(upstreamRows).toHaveLength(25);
  });
  it.each(upstreamRows)('$name', async (row) => {
    const { outcome, calls } = await run(row);
    expectOutcome(outcome, calls, row.want);
  });
});

describe('scale step with scale to zero disabled (upstream TestDisableScaleToZero)', () => {
  it.each(disabledRows)('$name', async (row) => {
    const { outcome, calls } = await run(row);
    expectOutcome(outcome, calls, row.want);
  });
});

describe('scale step edge cases', () => {
  it.each(derivedRows)('$name', async (row) => {
    const { outcome, calls } = await run(row);
    expectOutcome(outcome, calls, row.want);
  });

  it('keeps the plan (and its re-enqueue) when reading the target fails', async () => {
    const { ports } = fakeTarget(10, { ok: true });
    const failure = new Error('scale target Deployment default/web not found');
    ports.readScale = () => Promise.reject(failure);
    const outcome = await scaleTarget(
      {
        desired: 0,
        bounds: { minScale: 0, maxScale: 0 },
        conditions: active(STABLE_WINDOW - SECOND),
        settings: { enableScaleToZero: true, stableWindowMs: STABLE_WINDOW, gracePeriodMs: GRACE },
        activatorSeenSince: null,
        now: NOW,
      },
      ports,
    );
    expect(outcome).toMatchObject({ ok: false, error: failure, plan: { scale: 1, requeueAfterMs: [SECOND] } });
  });

  it('reports a failed patch with the plan', async () => {
    const { ports } = fakeTarget(1, { ok: true });
    ports.patchScale = () => Promise.reject(new Error('conflict'));
    const outcome = await scaleTarget(
      {
        desired: 4,
        bounds: { minScale: 0, maxScale: 0 },
        conditions: active(0),
        settings: { enableScaleToZero: true, stableWindowMs: STABLE_WINDOW, gracePeriodMs: GRACE },
        activatorSeenSince: null,
        now: NOW,
      },
      ports,
    );
    expect(outcome).toMatchObject({ ok: false, plan: { scale: 4, apply: true, reason: 'desired-nonzero' } });
  });
});
