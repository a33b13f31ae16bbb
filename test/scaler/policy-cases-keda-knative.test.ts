/**
 * policy-cases.md, KEDA (E1–E5) and Knative (N1–N5) cases, every row in scope through the
 * production scale step (planTarget, the executor, the settle step), the policy configured as a
 * user writes it and the targets row carried from reconcile to reconcile.
 *
 * A KEDA trigger reads as the target's load source. KEDA has no activator: a push target at zero
 * without one sleeps and wakes by its activation threshold and cooldown, as KEDA's do; the
 * Knative rows have an activator in front (the in-memory probe finds it). A row's
 * "→ n" is the scale the plan decides: written, or reported without a write where Drover's
 * scale-to-zero rules take over (a reported 0 marks the target inactive and brings the activator
 * in, as Knative's scaler does with a decider's 0).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/load.js';
import { initializeConditions, markActive } from '../../src/scaler/read/conditions.js';
import { ACTIVATOR, MINUTE, SECOND, T0, inactiveFor, planDriver, planOnce, push, settingsOf } from './plan-driver.js';

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

/** The rows run below, by table: each `it` names its row and adds it here as it is declared. */
const covered = { keda: new Set<number>(), knative: new Set<number>() };
const row = (table: keyof typeof covered, ...numbers: number[]) => {
  for (const n of numbers) covered[table].add(n);
  return numbers.map((n) => `#${n}`).join(', ');
};

const OPEN_RATES = { maxScaleDownRate: 1000 };
const fallback = (failureThreshold: number, replicas: number, behavior = 'static') => ({ fallback: { failureThreshold, replicas, behavior } });

describe('KEDA fallback (E1), through the plan', () => {
  const rows: { name: string; failures: number; failed: boolean; load?: number; target: number; policy: Record<string, unknown>; current: number; wantFailures: number | undefined; want: number | undefined; boundBy?: string }[] = [
    { name: `${row('keda', 1)} a source that answers again resets its failures, and its metric 6 (target 3) passes through: 2 replicas`, failures: 5, failed: false, load: 6, target: 3, policy: fallback(3, 10), current: 5, wantFailures: undefined, want: 2 },
    { name: `${row('keda', 2)} without a fallback a failing read gives no decision`, failures: 0, failed: true, target: 3, policy: {}, current: 5, wantFailures: 1, want: undefined, boundBy: 'NoEvidence' },
    { name: `${row('keda', 3)} a 4th failure is beyond the threshold 3: the fallback 10 replicas`, failures: 3, failed: true, target: 10, policy: fallback(3, 10), current: 5, wantFailures: 4, want: 10, boundBy: 'FallbackActive' },
    { name: `${row('keda', 5)} currentReplicasIfHigher with current 4 takes the fallback 10`, failures: 3, failed: true, target: 10, policy: fallback(3, 10, 'currentReplicasIfHigher'), current: 4, wantFailures: 4, want: 10, boundBy: 'FallbackActive' },
    { name: `${row('keda', 6)} currentReplicas keeps the current 6`, failures: 3, failed: true, target: 10, policy: fallback(3, 10, 'currentReplicas'), current: 6, wantFailures: 4, want: 6, boundBy: 'FallbackActive' },
  ];
  it.each(rows)('$name', async (r) => {
    const settings = settingsOf({ ...push(r.target), ...OPEN_RATES, minScale: 1, maxScale: 20, ...r.policy });
    const out = await planOnce(settings, { current: r.current, record: { sourceFailures: r.failures } }, { at: T0, load: r.failed ? undefined : r.load, failed: r.failed });
    expect({ scale: out.scale, boundBy: out.boundBy, failures: out.record.sourceFailures }).toEqual({ scale: r.want, boundBy: r.boundBy, failures: r.wantFailures });
    expect(out.written).toEqual(r.want === undefined || r.want === r.current ? undefined : [r.current, r.want]);
    // KEDA propagates the error; Drover keeps it in the row (status, the decision log).
    expect(out.record.lastError).toBe(r.failed ? 'the source answered 503' : undefined);
  });

  it(`${row('keda', 4)} a fallback with a negative failure threshold is refused at load (KEDA would run as if it had none)`, () => {
    let refused: unknown;
    try {
      settingsOf({ ...push(10), minScale: 1, ...fallback(-3, 10) });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toContain('targets[0].fallback.failureThreshold');
  });
});

describe('KEDA fallback over several reads (E5), through the plan', () => {
  it(`${row('keda', 7)} currentReplicasIfLower: 4 replicas for a metric of 20, and 3 once the source has failed past the threshold 1, stable for 30 s`, async () => {
    const settings = settingsOf({ ...push(5), ...OPEN_RATES, minScale: 0, maxScale: 5, ...fallback(1, 3, 'currentReplicasIfLower'), cooldown: '1s', behavior: { scaleDown: { stabilizationWindow: '1s' } } });
    const d = planDriver(settings, { current: 1 });
    expect((await d.step({ at: T0, load: 20 })).scale).toBe(4);
    // The first failure is not past the threshold: no sample, no decision, nothing lowered.
    expect(await d.step({ at: T0 + 5 * SECOND, load: undefined, failed: true })).toMatchObject({ scale: undefined, written: undefined });
    expect(await d.step({ at: T0 + 10 * SECOND, load: undefined, failed: true })).toMatchObject({ scale: 3, boundBy: 'FallbackActive', written: [4, 3] });
    for (let t = 15; t <= 40; t += 5) expect(await d.step({ at: T0 + t * SECOND, load: undefined, failed: true })).toMatchObject({ scale: 3, written: undefined });
  });

  it(`${row('keda', 8)} from zero, a static fallback of 3 wakes the target: an engaged fallback stands for the load`, async () => {
    const settings = settingsOf({ ...push(5), ...OPEN_RATES, minScale: 0, maxScale: 5, ...fallback(1, 3), cooldown: '1s' });
    const d = planDriver(settings, { current: 0, conditions: inactiveFor(10 * MINUTE) });
    expect(await d.step({ at: T0, load: 0 })).toMatchObject({ scale: 0, written: undefined });
    expect(await d.step({ at: T0 + 5 * SECOND, load: undefined, failed: true })).toMatchObject({ scale: undefined, written: undefined });
    expect(await d.step({ at: T0 + 10 * SECOND, load: undefined, failed: true })).toMatchObject({ scale: 3, boundBy: 'FallbackActive', written: [0, 3] });
    for (let t = 15; t <= 40; t += 5) expect((await d.step({ at: T0 + t * SECOND, load: undefined, failed: true })).scale).toBe(3);
  });
});

describe('KEDA activation (E2), through the plan', () => {
  it(`${row('keda', 9)} with min 5, an inactive target at 1 is raised to 5`, async () => {
    const out = await planOnce(settingsOf({ ...push(10), minScale: 5, maxScale: 100 }), { current: 1 }, { at: T0, load: 0 });
    expect(out).toMatchObject({ scale: 5, boundBy: 'TooFewReplicas', written: [1, 5] });
  });

  it(`${row('keda', 10)} with min 0, an active source wakes a target at 0 to 1, and its last active time is stamped`, async () => {
    const out = await planOnce(settingsOf({ ...push(10), minScale: 0, maxScale: 100 }), { current: 0, conditions: inactiveFor(10 * MINUTE) }, { at: T0, load: 1 });
    expect(out).toMatchObject({ scale: 1, written: [0, 1] });
    expect([out.record.lastActiveAt, out.record.wakeRequestedAt]).toEqual([T0, T0]);
  });

  it(`${row('keda', 13)} min 1, a failing read with a fallback not yet engaged: no decision, so no write`, async () => {
    const out = await planOnce(settingsOf({ ...push(10), minScale: 1, ...fallback(3, 5) }), { current: 1 }, { at: T0, load: undefined, failed: true });
    expect(out).toMatchObject({ scale: undefined, written: undefined });
  });
});

describe('KEDA activation threshold (E4), through the plan', () => {
  it(`${row('keda', 15)} an activation threshold of 5: a value of 3 leaves the target asleep (its 1 replica unasked), 8 wakes it`, async () => {
    const settings = settingsOf({ load: { source: 'push', targetPerReplica: 10, activationThreshold: 5 }, minScale: 0 });
    const d = planDriver(settings, { current: 0, conditions: inactiveFor(10 * MINUTE) });
    expect(await d.step({ at: T0, load: 3 })).toMatchObject({ scale: 0, boundBy: 'Inactive', written: undefined });
    expect(await d.step({ at: T0 + SECOND, load: 8 })).toMatchObject({ scale: 1, written: [0, 1] });
  });
});

describe('Knative max window (N1, N2), through scaleDownDelay', () => {
  // A delay of 10 s is Knative's TimeWindow(10s, 2s): 5 buckets, index = Unix seconds ÷ 2.
  const BUCKET = 2 * SECOND;
  const run = async (delay: string, records: [at: number, value: number][]) => {
    const d = planDriver(settingsOf({ ...push(1), ...OPEN_RATES, minScale: 1, scaleDownDelay: delay }), { current: 1 });
    const seen = [];
    for (const [at, value] of records) seen.push((await d.step({ at, load: value })).scale);
    return seen;
  };
  const rows: { name: string; values: number[]; indexes?: number[]; want: number[] }[] = [
    { name: `${row('knative', 1)} descending values keep the first maximum`, values: [2, 1], want: [2, 2] },
    { name: `${row('knative', 2)} the 6 from index 1 is gone at index 6`, values: [5, 6, 5, 5, 5, 5, 5], want: [5, 6, 6, 6, 6, 6, 5] },
    // A 0 is raised to minScale 1 after the window; the window itself still answers 4.
    { name: `${row('knative', 3)} windowing out 8`, values: [5, 8, 5, 7, 5, 5, 1, 4, 4, 4, 4, 9, 3, 4, 2, 1, 0], want: [5, 8, 8, 8, 8, 8, 7, 7, 5, 5, 4, 9, 9, 9, 9, 9, 4] },
    { name: `${row('knative', 4)} values in one bucket keep the larger`, values: [7, 6, 5, 4, 3, 2, 1], indexes: [1, 1, 1, 1, 1, 1, 1], want: [7, 7, 7, 7, 7, 7, 7] },
  ];
  it.each(rows)('$name', async (r) => {
    // Several records in one bucket are a millisecond apart.
    const records = r.values.map((v, i): [number, number] => [T0 + (r.indexes?.[i] ?? i) * BUCKET + (r.indexes ? i : 0), v]);
    expect(await run('10s', records)).toEqual(r.want);
  });

  it(`${row('knative', 5)} a window of 5 s forgets a 5 recorded 6 s before a 4 (Drover's delay buckets are 2 s wide, not 1 s: the gap is past the window either way)`, async () => {
    expect(await run('5s', [[T0, 5], [T0 + 6 * SECOND, 4]])).toEqual([5, 4]);
  });
});

describe('Knative decider: delay, panic, rates (N3), through the plan', () => {
  const web = (targetPerReplica: number, over: Record<string, unknown> = {}) => settingsOf({ ...push(targetPerReplica), ...ACTIVATOR, minScale: 0, maxScaleUpRate: 10, maxScaleDownRate: 10, ...over });
  const panic = { panic: { enabled: true, threshold: 200 } };

  it(`${row('knative', 6)} a 5-minute scale-down delay holds 4 until the 40 is a whole delay old, then 0`, async () => {
    const d = planDriver(web(10, { scaleDownDelay: '5m' }), { current: 1 });
    expect(await d.step({ at: T0 + 2 * SECOND, load: 40 })).toMatchObject({ scale: 4, written: [1, 4] });
    expect(await d.step({ at: T0 + 5 * MINUTE, load: 0 })).toMatchObject({ scale: 4, boundBy: 'ScaleDownDelayed', written: undefined });
    // The decider's 0 is reported: the target is marked inactive, the activator brought in.
    const zero = await d.step({ at: T0 + 5 * MINUTE + 2 * SECOND, load: 0 });
    expect([zero.scale, zero.outcome.plan.reason]).toEqual([0, 'stable-window-elapsed']);
  });

  it(`${row('knative', 8)} without a delay, 40 → 4 and 20 half a second later → 2`, async () => {
    const d = planDriver(web(10), { current: 1 });
    expect((await d.step({ at: T0, load: 40 })).scale).toBe(4);
    expect((await d.step({ at: T0 + 500, load: 20 })).scale).toBe(2);
  });

  it(`${row('knative', 9)} panic holds the highest count until a whole stable window after it was last over the threshold`, async () => {
    const d = planDriver(web(10, { ...panic, minScale: 1 }), { current: 1 });
    const T = T0 + 10 * SECOND;
    expect((await d.step({ at: T0, load: 100 })).scale).toBe(10);
    // Upstream's pods: 10 ready from T on, whatever the scale written.
    expect((await d.step({ at: T, load: 100, panic: 1000, ready: 10 })).scale).toBe(100);
    expect(await d.step({ at: T + 30 * SECOND, load: 1, ready: 10 })).toMatchObject({ scale: 100, boundBy: 'Panicking' });
    expect((await d.step({ at: T + 61 * SECOND, load: 1, ready: 10 })).scale).toBe(1);
  });

  it(`${row('knative', 10)} a panic that began at S ends 60 s after S although the panic window kept rising slowly`, async () => {
    const d = planDriver(web(1, { ...panic, minScale: 1 }), { current: 10 });
    expect((await d.step({ at: T0, load: 11, panic: 25, ready: 10 })).scale).toBe(25);
    expect((await d.step({ at: T0 + 30 * SECOND, load: 30, panic: 41, ready: 40 })).scale).toBe(41);
    expect((await d.step({ at: T0 + 62 * SECOND, load: 50, panic: 56, ready: 55 })).scale).toBe(50);
  });

  it(`${row('knative', 11)} a scale-down rate of 1.1 from 100 ready allows ⌊100/1.1⌋ = 90`, async () => {
    const out = await planOnce(web(10, { maxScaleUpRate: 1000, maxScaleDownRate: 1.1 }), { current: 100 }, { at: T0, load: 1 });
    expect(out).toMatchObject({ scale: 90, boundBy: 'ScaleDownLimit', written: [100, 90] });
  });
});

describe('Knative initial scale (N4), through the plan', () => {
  // The row gives the decider's 0: Knative's down rate is opened so it does not bind first.
  const web = settingsOf({ ...push(1), ...ACTIVATOR, ...OPEN_RATES, minScale: 0, initialScale: 2, scaleToZero: { stableWindow: '5m', gracePeriod: '1m' } });

  it(`${row('knative', 13)} not yet initialized, a desired 1 is raised to the initial scale 2, and the plan writes 0 → 2`, async () => {
    const out = await planOnce(web, { current: 0, conditions: initializeConditions({}, T0) }, { at: T0, load: 1, ready: 0 });
    expect(out).toMatchObject({ scale: 2, boundBy: 'InitialScale', written: [0, 2] });
  });

  it(`${row('knative', 15)} once initialized, a desired 0 is the first step to zero: 2 → 1 and one re-enqueue`, async () => {
    const out = await planOnce(web, { current: 2, conditions: markActive({}, T0 - 2 * MINUTE), record: { initialScaleReached: true } }, { at: T0, load: 0 });
    expect(out.written).toEqual([2, 1]);
    expect(out.outcome.plan).toEqual({ kind: 'apply', scale: 1, reason: 'stable-window-pending', requeueAfterMs: [3 * MINUTE], offerAsyncProbe: false });
  });
});

describe('the tables cover every row of policy-cases.md', () => {
  it('each KEDA and Knative row is run above or listed as out of scope with a reason', () => {
    const all = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    const union = (run: Set<number>, out: object) => [...run, ...Object.keys(out).map(Number)].sort((a, b) => a - b);
    expect(union(covered.keda, OUT_OF_SCOPE.keda)).toEqual(all(16));
    expect(union(covered.knative, OUT_OF_SCOPE.knative)).toEqual(all(15));
  });
});
