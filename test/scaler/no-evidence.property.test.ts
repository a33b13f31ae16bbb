// No evidence, no scale-down: whatever the conditions, bounds, settings and time, a plan made
// without a load sample never lowers the target's scale and never writes 0.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConditionStatus } from '../../src/scaler/decide/conditions.js';
import { planScale } from '../../src/scaler/decide/plan-scale.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);

const status = fc.constantFrom<ConditionStatus | undefined>('True', 'False', 'Unknown', undefined);
const input = fc.record({
  active: status,
  ready: status,
  since: fc.integer({ min: 0, max: 3_600_000 }),
  minScale: fc.integer({ min: 0, max: 20 }),
  maxScale: fc.integer({ min: 0, max: 20 }),
  reachability: fc.constantFrom('Reachable', 'Unreachable', 'Unknown', undefined),
  enableScaleToZero: fc.boolean(),
  stableWindowMs: fc.integer({ min: 1_000, max: 600_000 }),
  gracePeriodMs: fc.integer({ min: 0, max: 120_000 }),
  activationTimeoutMs: fc.integer({ min: 1, max: 900_000 }),
  currentScale: fc.integer({ min: 0, max: 50 }),
  probe: fc.option(fc.record({ ok: fc.boolean() }), { nil: undefined }),
  activatorSeenFor: fc.option(fc.integer({ min: 0, max: 600_000 }), { nil: undefined }),
});

describe('a plan without a load sample', () => {
  it('never lowers the scale', () => {
    fc.assert(
      fc.property(input, (i) => {
        const condition = (s: ConditionStatus | undefined) => (s === undefined ? undefined : { status: s, lastTransitionTime: NOW - i.since });
        const active = condition(i.active);
        const ready = condition(i.ready);
        const step = planScale({
          desired: { kind: 'unknown' },
          bounds: { minScale: i.minScale, maxScale: i.maxScale, ...(i.reachability ? { reachability: i.reachability } : {}) },
          conditions: { ...(active ? { active } : {}), ...(ready ? { ready } : {}) },
          settings: { enableScaleToZero: i.enableScaleToZero, stableWindowMs: i.stableWindowMs, gracePeriodMs: i.gracePeriodMs, activationTimeoutMs: i.activationTimeoutMs },
          activatorSeenSince: i.activatorSeenFor === undefined ? null : NOW - i.activatorSeenFor,
          ...(i.probe ? { probe: i.probe } : {}),
          currentScale: i.currentScale,
          now: NOW,
        });
        expect(step.kind).toBe('plan');
        if (step.kind === 'plan' && step.plan.kind === 'apply') expect(step.plan.scale).toBeGreaterThan(i.currentScale);
      }),
      { numRuns: 500 },
    );
  });
});
