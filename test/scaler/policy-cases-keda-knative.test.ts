/**
 * policy-cases.md, KEDA (E1–E5) and Knative (N1–N5) cases, through the policy stages
 * (decidePolicy) and, for the rows about going to zero, the plan's scale-to-zero step.
 *
 * KEDA triggers read as `queue` sources here: KEDA has no activator, and in Drover a target
 * whose sources are all queue or push is the one that sleeps and wakes without one.
 */
import { describe, expect, it } from 'vitest';
import { planScale } from '../../src/scaler/decide/plan-scale.js';
import { initializeConditions, markActive } from '../../src/scaler/decide/conditions.js';
import { policySchema } from '../../src/config/policy-schema.js';
import { currentMax, recordMax, timeBucket, type MaxEntry } from '../../src/scaler/policy/max-window.js';
import { anySourceActive, nextFailures, sourcesDemand, type FallbackSettings, type SourceSpec } from '../../src/scaler/policy/sources.js';
import { EMPTY_POLICY_STATE } from '../../src/scaler/policy/state.js';
import { MINUTE, OPEN_DECIDER, SECOND, T0, driver, settingsFrom } from './policy-support.js';

/** Rows that need what Drover does not have, and why. */
export const OUT_OF_SCOPE = {
  keda: {
    11: 'idleReplicaCount: Drover has no idle count below minScale',
    12: 'forced activation by annotation: Drover has no such override (pause is its manual control)',
    14: 'the HPA KEDA creates (min 1, max 100 by default): Drover is the scaler, there is no HPA object',
    16: 'idleReplicaCount (idle 0 below min 2)',
  },
  knative: {
    7: 'reachability: a Drover target is always reachable from its load source',
    12: 'reachability (maxDown 0 when unreachable)',
    14: 'reachability (an unreachable revision scales to zero despite its initial scale)',
  },
} as const;

const job: SourceSpec = { name: 'load', kind: 'queue', targetPerReplica: 10, activationThreshold: 0 };
const fb = (failureThreshold: number, replicas: number, behavior: FallbackSettings['behavior'] = 'static'): FallbackSettings => ({ failureThreshold, replicas, behavior });
const queue = (over: Record<string, unknown> = {}) => ({ load: { source: 'queue', queueName: 'q', accountName: 'acct', ...over } });

describe('KEDA fallback (E1)', () => {
  const rows: { name: string; failures: number; read: 'ok' | 'failed'; value?: number; target: number; fallback?: FallbackSettings; current: number; wantFailures: number; want: number | 'no decision' }[] = [
    { name: '#1 a source that answers again resets its failures, and its metric 6 (target 3) passes through: 2 replicas', failures: 5, read: 'ok', value: 6, target: 3, fallback: fb(3, 10), current: 5, wantFailures: 0, want: 2 },
    { name: '#2 without a fallback a failing read gives no decision', failures: 0, read: 'failed', target: 3, current: 5, wantFailures: 1, want: 'no decision' },
    { name: '#3 a 4th failure is beyond the threshold 3: the fallback 10 replicas', failures: 3, read: 'failed', target: 10, fallback: fb(3, 10), current: 5, wantFailures: 4, want: 10 },
    { name: '#5 currentReplicasIfHigher with current 4 takes the fallback 10', failures: 3, read: 'failed', target: 10, fallback: fb(3, 10, 'currentReplicasIfHigher'), current: 4, wantFailures: 4, want: 10 },
    { name: '#6 currentReplicas keeps the current 6', failures: 3, read: 'failed', target: 10, fallback: fb(3, 10, 'currentReplicas'), current: 6, wantFailures: 4, want: 6 },
  ];
  it.each(rows)('$name', (row) => {
    const failures = nextFailures(row.failures, row.read);
    expect(failures).toBe(row.wantFailures);
    const demand = sourcesDemand({ specs: [{ ...job, targetPerReplica: row.target }], readings: [{ name: 'load', value: row.value, failures }], combine: { kind: 'max' }, fallback: row.fallback, current: row.current });
    expect(demand.kind === 'known' ? demand.demand : 'no decision').toBe(row.want);
  });

  it('#4 a fallback with a negative failure threshold is refused at load (KEDA would run as if it had none)', () => {
    const result = policySchema.safeParse({ fallback: { failureThreshold: -3, replicas: 10 } });
    expect(result.success ? [] : result.error.issues.map((i) => i.path.join('.'))).toEqual(['fallback.failureThreshold']);
  });
});

describe('KEDA fallback over several reads (E5)', () => {
  it('#7 currentReplicasIfLower: 4 replicas for a metric of 20, and 3 once the source has failed past the threshold 1, stable for 30 s', () => {
    const settings = settingsFrom({ ...queue({ targetPerReplica: 5 }), fallback: { failureThreshold: 1, replicas: 3, behavior: 'currentReplicasIfLower' }, cooldown: '1s', behavior: { scaleDown: { stabilizationWindow: '1s' } } });
    const d = driver(settings, { decider: OPEN_DECIDER, minScale: 0, maxScale: 5, since: T0 - MINUTE }, 0);
    expect(d.run({ at: T0, values: { load: 20 } }).desired).toBe(4);
    expect(d.run({ at: T0 + 5 * SECOND, values: { load: 'failed' } }).desired).toBeUndefined();
    const engaged = d.run({ at: T0 + 10 * SECOND, values: { load: 'failed' } });
    expect([engaged.desired, engaged.boundBy]).toEqual([3, ['FallbackActive']]);
    for (let t = 15; t <= 40; t += 5) expect(d.run({ at: T0 + t * SECOND, values: { load: 'failed' } }).desired).toBe(3);
  });

  it('#8 from zero, a static fallback of 3 wakes the target: an engaged fallback counts as active', () => {
    const settings = settingsFrom({ ...queue({ targetPerReplica: 5 }), fallback: { failureThreshold: 1, replicas: 3 }, cooldown: '1s' });
    const d = driver(settings, { decider: OPEN_DECIDER, minScale: 0, maxScale: 5, since: T0 - MINUTE }, 0);
    expect(d.run({ at: T0, values: { load: 0 } }).desired).toBe(0);
    expect(d.run({ at: T0 + 5 * SECOND, values: { load: 'failed' } }).desired).toBeUndefined();
    for (let t = 10; t <= 40; t += 5) expect(d.run({ at: T0 + t * SECOND, values: { load: 'failed' } }).desired).toBe(3);
  });
});

describe('KEDA activation (E2, E4)', () => {
  const base = { decider: OPEN_DECIDER, maxScale: 100, since: T0 - MINUTE };
  it('#9 with min 5, an inactive target at 1 is raised to 5', () => {
    const out = driver(settingsFrom(queue({ targetPerReplica: 10 })), { ...base, minScale: 5 }, 1).run({ at: T0, values: { load: 0 } });
    expect([out.desired, out.active]).toEqual([5, false]);
  });

  it('#10 with min 0, an active source wakes a target at 0 to 1 and stamps the last active time', () => {
    const out = driver(settingsFrom(queue({ targetPerReplica: 10 })), { ...base, minScale: 0 }, 0).run({ at: T0, values: { load: 1 } });
    expect([out.desired, out.active, out.state.lastActiveAt]).toEqual([1, true, T0]);
  });

  it('#13 min 1, a failing read with a fallback not yet engaged: no decision, so no write', () => {
    const d = driver(settingsFrom({ ...queue({ targetPerReplica: 10 }), fallback: { failureThreshold: 3, replicas: 5 } }), { ...base, minScale: 1 }, 1);
    expect(d.run({ at: T0, values: { load: 'failed' } }).desired).toBeUndefined();
  });

  it('#15 an activation threshold of 5: a value of 3 is inactive, 8 active', () => {
    const spec = { ...job, activationThreshold: 5 };
    const active = (value: number) => anySourceActive({ specs: [spec], readings: [{ name: 'load', value, failures: 0 }], combine: { kind: 'max' }, fallback: undefined, current: 0 });
    expect([active(3), active(8)]).toEqual([false, true]);
    const d = driver(settingsFrom(queue({ targetPerReplica: 10, activationThreshold: 5 })), { ...base, minScale: 0 }, 0);
    expect(d.run({ at: T0, values: { load: 3 } })).toMatchObject({ desired: 0, boundBy: ['Inactive'] });
    expect(d.run({ at: T0 + SECOND, values: { load: 8 } }).desired).toBe(1);
  });
});

describe('Knative max window (N1, N2)', () => {
  const run = (buckets: number, records: [index: number, value: number][]) => {
    let window: MaxEntry[] = [];
    return records.map(([index, value]) => currentMax((window = recordMax(window, buckets, index, value))));
  };
  const rows: { name: string; buckets: number; values: number[]; indexes?: number[]; want: number[] }[] = [
    { name: '#1 descending values keep the first maximum', buckets: 5, values: [2, 1], want: [2, 2] },
    { name: '#2 the 6 from index 1 is gone at index 6', buckets: 5, values: [5, 6, 5, 5, 5, 5, 5], want: [5, 6, 6, 6, 6, 6, 5] },
    { name: '#3 windowing out 8', buckets: 5, values: [5, 8, 5, 7, 5, 5, 1, 4, 4, 4, 4, 9, 3, 4, 2, 1, 0], want: [5, 8, 8, 8, 8, 8, 7, 7, 5, 5, 4, 9, 9, 9, 9, 9, 4] },
    { name: '#4 values in one bucket keep the larger', buckets: 5, values: [7, 6, 5, 4, 3, 2, 1], indexes: [1, 1, 1, 1, 1, 1, 1], want: [7, 7, 7, 7, 7, 7, 7] },
  ];
  it.each(rows)('$name', (row) => {
    expect(run(row.buckets, row.values.map((v, i) => [row.indexes?.[i] ?? i, v]))).toEqual(row.want);
  });

  it('#5 a time window of 5 s in 1 s buckets forgets a 5 recorded 6 s before a 4', () => {
    const at = (ms: number) => timeBucket(ms, SECOND);
    expect(run(5, [[at(T0), 5], [at(T0 + 6 * SECOND), 4]])).toEqual([5, 4]);
  });
});

describe('Knative decider: delay, panic, rates (N3)', () => {
  const web = { load: { source: 'http', url: 'http://metrics.example/q', targetPerReplica: 10 } };
  const rates = (up: number, down: number, panic?: number) => ({ ...OPEN_DECIDER, maxScaleUpRate: up, maxScaleDownRate: down, ...(panic ? { panic: { enabled: true, windowMs: 6 * SECOND, thresholdPercent: panic } } : {}) });
  const at = (ms: number) => T0 + ms;

  it('#6 a 5-minute scale-down delay holds 4 until the 40 is a whole delay old, then 0', () => {
    const d = driver(settingsFrom({ ...web, scaleDownDelay: '5m' }), { decider: rates(10, 10), minScale: 0, maxScale: 0, since: T0 }, 0);
    const seen = [[2 * SECOND, 40], [5 * MINUTE, 0], [5 * MINUTE + 2 * SECOND, 0]].map(([t, v]) => d.run({ at: at(t!), values: { load: v }, ready: 0 }));
    expect(seen.map((o) => o.desired)).toEqual([4, 4, 0]);
    expect(seen[1]!.boundBy).toEqual(['ScaleDownDelayed']);
  });

  it('#8 without a delay, 40 → 4 and 20 half a second later → 2', () => {
    const d = driver(settingsFrom(web), { decider: rates(10, 10), minScale: 0, maxScale: 0, since: T0 }, 0);
    expect([d.run({ at: at(0), values: { load: 40 }, ready: 0 }).desired, d.run({ at: at(500), values: { load: 20 }, ready: 0 }).desired]).toEqual([4, 2]);
  });

  it('#9 panic holds the highest count until a whole stable window after it was last over the threshold', () => {
    const d = driver(settingsFrom(web), { decider: rates(10, 10, 200), minScale: 0, maxScale: 0, since: T0 }, 1);
    const T = T0 + 10 * SECOND;
    expect(d.run({ at: T0, values: { load: 100 }, ready: 1 }).desired).toBe(10);
    expect(d.run({ at: T, values: { load: 100 }, panic: { load: 1000 }, ready: 10 }).desired).toBe(100);
    expect(d.run({ at: T + 30 * SECOND, values: { load: 1 }, ready: 10 }).desired).toBe(100);
    expect(d.run({ at: T + 61 * SECOND, values: { load: 1 }, ready: 10 }).desired).toBe(1);
  });

  it('#10 a panic that began at S ends 60 s after S although the panic window kept rising slowly', () => {
    const d = driver(settingsFrom({ load: { source: 'http', url: 'http://metrics.example/q', targetPerReplica: 1 } }), { decider: rates(10, 10, 200), minScale: 0, maxScale: 0, since: T0 }, 10);
    expect(d.run({ at: T0, values: { load: 11 }, panic: { load: 25 }, ready: 10 }).desired).toBe(25);
    expect(d.run({ at: T0 + 30 * SECOND, values: { load: 30 }, panic: { load: 41 }, ready: 40 }).desired).toBe(41);
    expect(d.run({ at: T0 + 62 * SECOND, values: { load: 50 }, panic: { load: 56 }, ready: 55 }).desired).toBe(50);
  });

  it('#11 a scale-down rate of 1.1 from 100 ready allows ⌊100/1.1⌋ = 90', () => {
    const d = driver(settingsFrom(web), { decider: rates(1000, 1.1), minScale: 0, maxScale: 0, since: T0 }, 100);
    expect(d.run({ at: T0, values: { load: 1 }, ready: 100 }).desired).toBe(90);
  });
});

describe('Knative initial scale (N4)', () => {
  const web = settingsFrom({ load: { source: 'http', url: 'http://metrics.example/q', targetPerReplica: 1 }, initialScale: 2 });
  const toZero = { enableScaleToZero: true, stableWindowMs: 5 * MINUTE, gracePeriodMs: MINUTE };

  it('#13 not yet initialized, a desired 1 is raised to the initial scale 2, and the plan writes 0 → 2', () => {
    const out = driver(web, { decider: OPEN_DECIDER, minScale: 0, maxScale: 0, since: T0 }, 0).run({ at: T0, values: { load: 1 }, ready: 0 });
    expect([out.desired, out.minScale, out.boundBy]).toEqual([2, 2, ['InitialScale']]);
    const plan = planScale({ desired: { kind: 'known', scale: out.desired! }, bounds: { minScale: out.minScale, maxScale: 0 }, conditions: initializeConditions({}, T0), settings: toZero, activatorSeenSince: null, currentScale: 0, now: T0 });
    expect(plan).toMatchObject({ kind: 'plan', plan: { kind: 'apply', scale: 2 } });
  });

  it('#15 once initialized, a desired 0 is the first step to zero: 2 → 1 and one re-enqueue', () => {
    const state = { ...EMPTY_POLICY_STATE, initialized: true };
    const out = driver(web, { decider: OPEN_DECIDER, minScale: 0, maxScale: 0, since: T0 }, 2, state).run({ at: T0, values: { load: 0 }, ready: 2 });
    expect([out.desired, out.minScale]).toEqual([0, 0]);
    const plan = planScale({ desired: { kind: 'known', scale: out.desired! }, bounds: { minScale: out.minScale, maxScale: 0 }, conditions: markActive({}, T0 - 2 * MINUTE), settings: toZero, activatorSeenSince: null, currentScale: 2, now: T0 });
    expect(plan).toEqual({ kind: 'plan', plan: { kind: 'apply', scale: 1, reason: 'stable-window-pending', requeueAfterMs: [3 * MINUTE], offerAsyncProbe: false } });
  });
});

describe('the tables cover every row of policy-cases.md', () => {
  it('each KEDA and Knative row is run above or listed as out of scope with a reason', () => {
    const run = { keda: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 15], knative: [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 13, 15] };
    const all = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    expect([...run.keda, ...Object.keys(OUT_OF_SCOPE.keda).map(Number)].sort((a, b) => a - b)).toEqual(all(16));
    expect([...run.knative, ...Object.keys(OUT_OF_SCOPE.knative).map(Number)].sort((a, b) => a - b)).toEqual(all(15));
  });
});
