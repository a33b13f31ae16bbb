/**
 * The wired policy stages through the production path: runScaleStep (planTarget, the executor
 * with in-memory ports, settleTarget), the record carried from step to step as the targets row
 * would be. Rows of policy-cases.md (HPA behaviour, Knative delay and initial scale) and the
 * Berlin office-hours floor across DST.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { markActive, initializeConditions, type TargetConditions } from '../../src/scaler/decide/conditions.js';
import { targetSettings } from '../../src/scaler/decide/target-settings.js';
import { applyRecordPatch, conditionFields, type TargetRecord } from '../../src/scaler/decide/target-record.js';
import { runScaleStep } from '../../src/scaler/shell/scale-step.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);

function target(policy: Record<string, unknown>, targetPerReplica: number) {
  const config = parseConfig({
    kubernetes: { kubeconfig: '/nonexistent' },
    targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, minScale: 1, load: { source: 'push', targetPerReplica }, maxScaleDownRate: 1000, ...policy }],
  });
  return targetSettings(config.targets[0]!, targetPerReplica);
}

interface Stepper {
  current: number;
  /** `load` undefined: no sample in the window; `failed`: this reconcile's read failed. */
  at(now: number, load: number | undefined, ready?: number, failed?: boolean): Promise<{ scale: number | undefined; boundBy: string | undefined }>;
}

/** Steps through runScaleStep: each writes (or not) and leaves its row for the next. */
function stepper(settings: ReturnType<typeof target>, current: number, conditions: TargetConditions = markActive({}, T0 - 10 * MINUTE)): Stepper {
  let record: TargetRecord | undefined = { ...(conditionFields(conditions) as TargetRecord), revision: 1 };
  const s: Stepper = {
    current,
    async at(now, load, ready = s.current, failed = false) {
      const outcome = await runScaleStep(
        {
          record,
          samples: { average: () => load },
          holdLatest: false,
          view: { kind: 'read', observed: { specReplicas: s.current, ready, resourceVersion: '1' } },
          settings,
          loadNote: 'table',
          ...(failed ? { loadError: 'http: answered 503' } : {}),
          trigger: 'test',
          dryRun: false,
          now,
        },
        { target: { kind: 'kubernetes', write: () => Promise.resolve(undefined) }, probeActivator: () => Promise.resolve({ ok: true }), checkLease: () => Promise.resolve() },
      );
      record = applyRecordPatch(record, outcome.recordPatch(record));
      if (outcome.write.kind === 'written') s.current = outcome.write.to;
      return { scale: outcome.plan.kind === 'hold' ? undefined : outcome.plan.scale, boundBy: outcome.boundBy };
    },
  };
  return s;
}

describe('HPA behavior through the plan', () => {
  it('#18 Percent 50 %/60 s: 2 → 3 at once, → 5 once that write is 60 s old (the settle step records the event)', async () => {
    const s = stepper(target({ behavior: { scaleUp: { policies: [{ type: 'Percent', value: 50, period: '60s' }] } }, maxScale: 10 }, 125), 2);
    const seen = [];
    for (const t of [0, 15, 30, 59, 60]) seen.push((await s.at(T0 + t * SECOND, 1000)).scale);
    expect(seen).toEqual([3, 3, 3, 3, 5]);
  });

  it('#17 with scale up Disabled the target stays at 1 for load of 8 replicas', async () => {
    const s = stepper(target({ behavior: { scaleUp: { selectPolicy: 'Disabled' } }, maxScale: 10 }, 125), 1);
    for (const t of [0, 15, 210]) expect(await s.at(T0 + t * SECOND, 938)).toEqual({ scale: 1, boundBy: 'ScaleUpLimit' });
  });

  it('#24 an up limit of 24 above maxScale 20 gives 20, TooManyReplicas', async () => {
    const s = stepper(target({ behavior: { scaleUp: { policies: [{ type: 'Percent', value: 700, period: '60s' }], stabilizationWindow: '0s' } }, maxScale: 20 }, 1), 3);
    expect(await s.at(T0, 60)).toEqual({ scale: 20, boundBy: 'TooManyReplicas' });
  });

  it('#8 a 5-minute down window seeded with the current 5 holds it over a raw 3 until the window has passed', async () => {
    const s = stepper(target({ behavior: { scaleDown: {} }, minScale: 2, maxScale: 6 }, 1), 5);
    expect(await s.at(T0, 3)).toEqual({ scale: 5, boundBy: 'ScaleDownStabilized' });
    expect((await s.at(T0 + 5 * MINUTE + SECOND, 3)).scale).toBe(3);
  });

  it('#25 a usage ratio of 1.02 keeps 3 replicas within the tolerance 0.1', async () => {
    const s = stepper(target({ behavior: { scaleUp: {}, scaleDown: { stabilizationWindow: '0s' } }, maxScale: 5 }, 1000), 3);
    expect((await s.at(T0, 3060)).scale).toBe(3);
  });
});

describe('Knative knobs through the plan', () => {
  it('#6 a 5-minute scale-down delay holds 4 until the 40 is a whole delay old (min 1 here: zero goes through the activator rules)', async () => {
    const s = stepper(target({ scaleDownDelay: '5m', maxScaleUpRate: 10, maxScaleDownRate: 10 }, 10), 1);
    expect((await s.at(T0 + 2 * SECOND, 40, 0)).scale).toBe(4);
    expect(await s.at(T0 + 5 * MINUTE, 0, 0)).toEqual({ scale: 4, boundBy: 'ScaleDownDelayed' });
    expect((await s.at(T0 + 5 * MINUTE + 2 * SECOND, 0, 0)).scale).toBe(1);
  });

  it('#13 not yet initialized, a desired 1 is raised to the initial scale 2: 0 → 2', async () => {
    const settings = target({ minScale: 0, initialScale: 2, activator: { probeUrl: 'http://web.example/healthz' } }, 1);
    const s = stepper(settings, 0, initializeConditions({}, T0));
    expect(await s.at(T0, 1, 0)).toEqual({ scale: 2, boundBy: 'InitialScale' });
  });

  it('once the initial scale has been reached it is no floor any more', async () => {
    const settings = target({ initialScale: 3, maxScale: 10 }, 1);
    const s = stepper(settings, 3);
    expect((await s.at(T0, 1, 3)).scale).toBe(1);
  });
});

describe('times from the future through the plan', () => {
  it('an activeSince an hour ahead (a host whose clock ran ahead) holds an idle target for one stable window, not an hour', async () => {
    const settings = target({ minScale: 0, scaleToZero: { stableWindow: '60s' }, activator: { probeUrl: 'http://web.example/healthz' } }, 1);
    const s = stepper(settings, 1, markActive({}, T0 + 60 * MINUTE));
    expect((await s.at(T0, 0, 1)).scale).toBe(1);
    expect((await s.at(T0 + 30 * SECOND, 0, 1)).scale).toBe(1);
    expect((await s.at(T0 + 61 * SECOND, 0, 1)).scale).toBe(0);
  });
});

describe('schedules through the plan', () => {
  it('a floor of 5 from 09:00 to 17:00 Europe/Berlin holds on the day of the DST change, and lets go at 17:00 local', async () => {
    const settings = target({ schedules: [{ cron: '0 9 * * *', duration: '8h', timezone: 'Europe/Berlin', minScale: 5 }], maxScale: 10 }, 10);
    const s = stepper(settings, 1);
    expect(await s.at(Date.parse('2026-03-29T06:59:00Z'), 10)).toEqual({ scale: 1 });
    expect(await s.at(Date.parse('2026-03-29T07:00:00Z'), 10)).toEqual({ scale: 5, boundBy: 'ScheduledFloor' });
    expect((await s.at(Date.parse('2026-03-29T14:59:00Z'), 10)).scale).toBe(5);
    expect((await s.at(Date.parse('2026-03-29T15:00:00Z'), 10)).scale).toBe(1);
  });
});

describe('source health and fallback through the plan', () => {
  const withFallback = (behavior: string) => target({ minScale: 0, scaleToZero: { enabled: false }, maxScale: 20, fallback: { failureThreshold: 3, replicas: 10, behavior } }, 10);

  it.each([
    ['KEDA #3: static, current 5 → the fallback 10', 'static', 5, 10],
    ['KEDA #5: currentReplicasIfHigher, current 4 → 10', 'currentReplicasIfHigher', 4, 10],
    ['KEDA #6: currentReplicas, current 6 → 6', 'currentReplicas', 6, 6],
    ['currentReplicasIfLower, current 12 → 10: fallback replicas apply downwards too', 'currentReplicasIfLower', 12, 10],
  ])('%s, once the source has failed 4 times against a threshold of 3', async (_name, behavior, current, want) => {
    const s = stepper(withFallback(behavior), current);
    // Before the fallback engages, a failing source with no sample gives no decision.
    for (const t of [1, 2, 3]) expect((await s.at(T0 + t * SECOND, undefined, current, true)).scale).toBeUndefined();
    expect(await s.at(T0 + 4 * SECOND, undefined, current, true)).toEqual({ scale: want, boundBy: 'FallbackActive' });
  });

  it('KEDA #1: a read that answers again resets the failures: its metric decides, the fallback is gone', async () => {
    const s = stepper(withFallback('static'), 5);
    for (const t of [1, 2, 3, 4]) await s.at(T0 + t * SECOND, undefined, 5, true);
    expect(s.current).toBe(10);
    expect((await s.at(T0 + 5 * SECOND, 60, 10)).scale).toBe(6);
    expect((await s.at(T0 + 6 * SECOND, undefined, 6, true)).scale).toBeUndefined();
  });

  it('a failing read blocks scale-down: the window still asks for 2, the target keeps 6', async () => {
    const s = stepper(target({ maxScale: 20 }, 10), 6);
    expect(await s.at(T0, 20, 6, true)).toEqual({ scale: 6, boundBy: 'SourceFailing' });
  });

  it('a failing read does not block scale-up: the window asks for 8, the target goes from 6 to 8', async () => {
    const s = stepper(target({ maxScale: 20 }, 10), 6);
    expect((await s.at(T0, 80, 6, true)).scale).toBe(8);
  });

  it('with no sample at all and no fallback, today\'s rule: no decision', async () => {
    const s = stepper(target({ maxScale: 20 }, 10), 6);
    expect((await s.at(T0, undefined, 6, true)).scale).toBeUndefined();
  });
});
