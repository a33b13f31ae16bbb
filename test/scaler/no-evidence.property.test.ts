// No evidence, no scale-down: whatever the stored conditions, bounds, settings, probe answer and
// time, the production plan (planTarget, which the reconcile, the scaler tables and the replay
// all use) made without a load sample never lowers the target's scale and never writes 0.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConditionStatus } from '../../src/scaler/read/conditions.js';
import type { TargetSettings } from '../../src/scaler/read/target-settings.js';
import { planTarget, type TargetSnapshot } from '../../src/scaler/decide/plan-target.js';
import { ACTIVATOR, push, settingsOf } from './plan-driver.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
/** A push target with an activator in front, under each policy: the settings every run starts from, as parsed from configuration. */
const BASES = {
  knative: settingsOf({ ...push(1), ...ACTIVATOR }),
  adaptive: settingsOf({ ...push(1), ...ACTIVATOR, policy: 'adaptive' }),
  'adaptive, forecast: floor': settingsOf({ ...push(1), ...ACTIVATOR, policy: 'adaptive', forecast: { mode: 'floor' } }),
};
/** A season whose day ago rose from 0 to 40 at this hour: a forecast that would raise, were there any evidence. */
const RISING_SEASON = JSON.stringify({ s: Math.floor(NOW / 300_000) - 288 - 12, v: [...Array<number>(12).fill(0), ...Array<number>(12).fill(40)] });

const status = fc.constantFrom<ConditionStatus | undefined>('True', 'False', 'Unknown', undefined);
const input = fc.record({
  active: status,
  since: fc.integer({ min: 0, max: 3_600_000 }),
  minScale: fc.integer({ min: 0, max: 20 }),
  maxScale: fc.integer({ min: 0, max: 20 }),
  reachability: fc.constantFrom('Reachable', 'Unreachable', 'Unknown', undefined),
  enableScaleToZero: fc.boolean(),
  stableWindowMs: fc.integer({ min: 1_000, max: 600_000 }),
  gracePeriodMs: fc.integer({ min: 0, max: 120_000 }),
  activationTimeoutMs: fc.integer({ min: 1, max: 900_000 }),
  currentScale: fc.integer({ min: 0, max: 50 }),
  ready: fc.integer({ min: 0, max: 50 }),
  probe: fc.option(fc.record({ ok: fc.boolean() }), { nil: undefined }),
  activatorSeenFor: fc.option(fc.integer({ min: 0, max: 600_000 }), { nil: undefined }),
  lastActiveFor: fc.option(fc.integer({ min: 0, max: 3_600_000 }), { nil: undefined }),
  sourceFailed: fc.boolean(),
  policy: fc.constantFrom<keyof typeof BASES>('knative', 'adaptive', 'adaptive, forecast: floor'),
  // The adaptive policy's row: a history whose minutes asked for less than the scale.
  storedMinutes: fc.boolean(),
});

type Input = typeof input extends fc.Arbitrary<infer T> ? T : never;

function settingsFor(i: Input): TargetSettings {
  return {
    ...BASES[i.policy],
    bounds: { minScale: i.minScale, maxScale: i.maxScale, ...(i.reachability ? { reachability: i.reachability } : {}) },
    scaleToZero: { enableScaleToZero: i.enableScaleToZero, stableWindowMs: i.stableWindowMs, gracePeriodMs: i.gracePeriodMs, activationTimeoutMs: i.activationTimeoutMs },
  };
}

function snapshotFor(i: Input): TargetSnapshot {
  return {
    kind: 'kubernetes',
    record: {
      ...(i.active === undefined ? {} : { activeStatus: i.active, activeSince: NOW - i.since }),
      ...(i.activatorSeenFor === undefined ? {} : { activatorSeenSince: NOW - i.activatorSeenFor }),
      ...(i.lastActiveFor === undefined ? {} : { lastActiveAt: NOW - i.lastActiveFor }),
      requestedScale: i.currentScale,
      ...(i.storedMinutes ? { loadMinutes: JSON.stringify({ s: Math.floor(NOW / 60_000) - 200, v: Array<number>(200).fill(0), u: Array<number>(200).fill(1), r: Array<number>(200).fill(1), c: Array<number>(200).fill(1) }), loadSeason: RISING_SEASON } : {}),
    },
    view: { kind: 'read', observed: { specReplicas: i.currentScale, ready: Math.min(i.ready, i.currentScale) } },
    // No sample in any window: the stable and panic averages are unknown.
    samples: { average: () => undefined },
    holdLatest: false,
    ...(i.sourceFailed ? { loadFailed: true } : {}),
    dryRun: false,
  };
}

describe('the production plan without a load sample', () => {
  it('never lowers the scale and never writes 0, under either policy, with or without a forecast', () => {
    fc.assert(
      fc.property(input, (i) => {
        const settings = settingsFor(i);
        let plan = planTarget(snapshotFor(i), settings, NOW);
        // The executor's second call, after the synchronous probe the first asked for.
        if (plan.kind === 'probe') plan = planTarget({ ...snapshotFor(i), probe: i.probe ?? { ok: true } }, settings, NOW);
        expect(plan.kind).toBe('plan');
        if (plan.kind !== 'plan') return;
        if (plan.write.kind === 'write') {
          expect(plan.write.to).toBeGreaterThan(plan.write.from);
          expect(plan.write.to).toBeGreaterThan(0);
        }
        const decided = plan.decided.plan;
        if (decided.kind === 'apply') expect(decided.scale).toBeGreaterThanOrEqual(i.currentScale);
        // Nor does the forecast act on a season alone: without a sample there is no level to raise.
        expect(plan.decided.boundBy).not.toBe('ForecastFloor');
        expect(plan.decided.forecast).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
