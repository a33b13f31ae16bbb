// The upstream TestScaler table (the 25 rows of the 2020 KPA), TestDisableScaleToZero and the
// derived edge cases, run through runScaleStep, the scale step production runs, with in-memory
// ports and a fixed `now`. Each row asserts the plan, the patch (or its absence) and the re-enqueue.
import { describe, expect, it } from 'vitest';
import type { Reachability } from '../../src/scaler/limit/bounds.js';
import {
  initializeConditions,
  markActive,
  markInactive,
  type TargetConditions,
} from '../../src/scaler/read/conditions.js';
import type { ScaleToZeroSettings, SyncProbeResult } from '../../src/scaler/zero/scale-to-zero.js';
import { conditionFields, type TargetRecord } from '../../src/scaler/read/target-record.js';
import { runScaleStep, type ScaleStepOutcome, type TargetView } from '../../src/scaler/write/scale-step.js';

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
  /** The desired scale the autoscaler answers; -1 = no sample in the window. */
  scaleTo: number;
  min?: number;
  max?: number;
  reachability?: Reachability;
  conditions?: TargetConditions;
  settings?: Partial<ScaleToZeroSettings>;
  activatorSeenFor?: number;
  probe?: SyncProbeResult;
  want: {
    /** The decided scale; -1 = held (no scale decided). */
    scale: number;
    patch: [from: number, to: number] | null;
    requeue?: number[];
    asyncOffer?: boolean;
    probed?: boolean;
  };
}

interface Calls {
  probes: number;
  patches: number[];
}

function recordOf(conditions: TargetConditions, row: Pick<Row, 'activatorSeenFor'>): TargetRecord {
  return {
    ...(conditionFields(conditions) as TargetRecord),
    ...(row.activatorSeenFor === undefined ? {} : { activatorSeenSince: NOW - row.activatorSeenFor }),
    revision: 1,
  };
}

async function run(row: Row, options: { record?: TargetRecord | undefined; view?: TargetView; failPatch?: Error } = {}) {
  const calls: Calls = { probes: 0, patches: [] };
  const stableWindowMs = row.settings?.stableWindowMs ?? STABLE_WINDOW;
  const scaleToZero = { enableScaleToZero: true, stableWindowMs: STABLE_WINDOW, gracePeriodMs: GRACE, activationTimeoutMs: ACTIVATION_TIMEOUT, ...row.settings };
  const view: TargetView = options.view ?? {
    kind: 'read',
    observed: { ...(row.start === undefined ? {} : { specReplicas: row.start }), ready: row.start ?? 1, resourceVersion: '7' },
  };
  const record = 'record' in options ? options.record : recordOf(row.conditions ?? activating(0), row);
  const outcome = await runScaleStep(
    {
      record,
      // The autoscaler's answer stands for the samples: one replica per unit of load.
      samples: { average: () => (row.scaleTo < 0 ? undefined : row.scaleTo) },
      holdLatest: false,
      view,
      settings: {
        bounds: { minScale: row.min ?? 0, maxScale: row.max ?? 0, reachability: row.reachability ?? 'Unreachable' },
        scaleToZero,
        // No rate limits: the tables give the autoscaler's answer.
        desired: { targetPerReplica: 1, stableWindowMs, maxScaleUpRate: Infinity, maxScaleDownRate: Infinity, panic: { enabled: false, windowMs: stableWindowMs / 10, thresholdPercent: 200 } },
      },
      loadNote: 'table',
      trigger: 'test',
      dryRun: false,
      now: NOW,
    },
    {
      target: {
        kind: 'kubernetes',
        write: (replicas) => {
          calls.patches.push(replicas);
          return options.failPatch ? Promise.reject(options.failPatch) : Promise.resolve(undefined);
        },
      },
      probeActivator: () => {
        calls.probes++;
        return Promise.resolve(row.probe ?? { ok: true });
      },
      checkLease: () => Promise.resolve(),
    },
  );
  return { outcome, calls };
}

function expectOutcome(outcome: ScaleStepOutcome, calls: Calls, want: Row['want']) {
  const { plan, write } = outcome;
  expect({
    scale: plan.kind === 'hold' ? -1 : plan.scale,
    patch: write.kind === 'written' ? [write.from, write.to] : null,
    patches: calls.patches,
    requeue: plan.requeueAfterMs,
    asyncOffer: outcome.offerAsyncProbe,
    probes: calls.probes,
  }).toEqual({
    scale: want.scale,
    patch: want.patch,
    patches: want.patch === null ? [] : [want.patch[1]],
    requeue: want.requeue ?? [],
    asyncOffer: want.asyncOffer ?? false,
    probes: want.probed ? 1 : 0,
  });
  // Each wait of the plan is a re-enqueue the reconcile sends (an activating target's is
  // anchored to when the activation began, a millisecond past its timeout).
  const anchor = plan.reason === 'activating' ? outcome.before.active!.lastTransitionTime : NOW;
  for (const ms of want.requeue ?? []) {
    expect(outcome.followUps.some((f) => f.at - anchor >= ms && f.at - anchor <= ms + 1)).toBe(true);
  }
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
    // Knative gives up and scales to zero; without a sample there is no evidence to lower on.
    name: 'no metrics while activating, after the timeout: held, no patch',
    start: 1, scaleTo: -1, conditions: activating(ACTIVATION_TIMEOUT + SECOND),
    want: { scale: -1, patch: null },
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
  it('has the 3 rows of the upstream table', () => {
    expect(disabledRows).toHaveLength(3);
  });
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

  it('a target read failure plans from the stored record: re-enqueue kept, nothing written, the error reported', async () => {
    const row: Row = { name: 'read failure', start: 10, scaleTo: 0, conditions: active(STABLE_WINDOW - SECOND), want: { scale: 1, patch: null } };
    const record = { ...recordOf(row.conditions!, row), requestedScale: 10, actualScale: 10 };
    const { outcome, calls } = await run(row, { record, view: { kind: 'stored', observed: { specReplicas: 10, ready: 10 }, error: 'HTTP 500: etcd timed out', transient: true } });
    expect(outcome.plan).toMatchObject({ kind: 'apply', scale: 1, requeueAfterMs: [SECOND] });
    expect(calls.patches).toEqual([]);
    expect(outcome.write).toEqual({ kind: 'unread', error: 'HTTP 500: etcd timed out', transient: true });
    expect(outcome.followUps.map((f) => f.at)).toContain(NOW + SECOND);
    expect(outcome.decision).toMatchObject({ decision: 'target unreadable', error: 'HTTP 500: etcd timed out', transient: true });
    expect(outcome.recordPatch(record)).toMatchObject({ lastError: 'HTTP 500: etcd timed out', requestedScale: 10, actualScale: 10 });
  });

  it('a read failure of an inactive target still offers the async probe', async () => {
    const row: Row = { name: 'read failure', start: 1, scaleTo: 0, conditions: inactive(GRACE + JUST_PAST), probe: { ok: false }, want: { scale: 0, patch: null } };
    const record = { ...recordOf(row.conditions!, row), requestedScale: 1, actualScale: 1 };
    const { outcome, calls } = await run(row, { record, view: { kind: 'stored', observed: { specReplicas: 1, ready: 1 }, error: 'HTTP 503', transient: true } });
    expect(calls.probes).toBe(1);
    expect(outcome.offerAsyncProbe).toBe(true);
    expect(outcome.write.kind).toBe('unread');
  });

  it('reports a failed patch with the plan', async () => {
    const row: Row = { name: 'failed patch', start: 1, scaleTo: 4, conditions: active(0), want: { scale: 4, patch: null } };
    const { outcome } = await run(row, { failPatch: new Error('conflict') });
    expect(outcome.plan).toMatchObject({ kind: 'apply', scale: 4, reason: 'desired-nonzero' });
    expect(outcome.write).toMatchObject({ kind: 'failed', from: 1, to: 4, error: 'conflict' });
    expect(outcome.decision).toMatchObject({ error: 'conflict', transient: true });
  });
});

describe('adoption (first sight: no record)', () => {
  it.each<{ name: string; start: number; ready: number; min: number; status: string; reason: string }>([
    { name: '8 ready, minScale 1: active', start: 8, ready: 8, min: 1, status: 'True', reason: 'AdoptedActive' },
    { name: '2 ready, minScale 3: activating', start: 3, ready: 2, min: 3, status: 'Unknown', reason: 'AdoptedActivating' },
    { name: 'at 0, nothing ready: inactive', start: 0, ready: 0, min: 0, status: 'False', reason: 'AdoptedAtZero' },
    { name: 'asking for 2, nothing ready yet: activating', start: 2, ready: 0, min: 0, status: 'Unknown', reason: 'AdoptedActivating' },
  ])('$name, nothing written whatever the load says', async ({ start, ready, min, status, reason }) => {
    const row: Row = { name: 'adopt', start, scaleTo: 0, min, reachability: 'Reachable', want: { scale: -1, patch: null } };
    const { outcome, calls } = await run(row, { record: undefined, view: { kind: 'read', observed: { specReplicas: start, ready, resourceVersion: '1' } } });
    expect(outcome.adopted).toBe(true);
    expect(outcome.plan).toMatchObject({ kind: 'hold', reason: 'adopted' });
    expect(calls).toEqual({ probes: 0, patches: [] });
    expect(outcome.recordPatch(undefined)).toMatchObject({ activeStatus: status, activeReason: reason, activeSince: NOW, adoptedAt: NOW });
    expect(outcome.followUps.map((f) => f.at)).toContain(NOW + SECOND);
  });
});
