/**
 * The policy modules' own rules, as sentences: formulas, schedules across DST and the bounded
 * histories the record keeps; and, through the plan, combining sources, failing sources and
 * fallback, and the queue target's sleep and wake without an activator.
 */
import { describe, expect, it } from 'vitest';
import { evaluateFormula, FormulaError, parseFormula } from '../../src/scaler/recommend/formula.js';
import { boundedRecommendations, MAX_HISTORY } from '../../src/scaler/limit/hpa-history.js';
import { isOpen, scheduledBounds, type Schedule } from '../../src/scaler/limit/schedules.js';
import { stabilize, type ScalingRules } from '../../src/scaler/limit/hpa-behavior.js';
import { MINUTE, SECOND, T0, inactiveFor, planDriver, settingsOf } from './plan-driver.js';

const rules = (over: Partial<ScalingRules>): ScalingRules => ({ stabilizationWindowMs: 0, policies: [], selectPolicy: 'Max', tolerance: 0, ...over });
const source = (name: string, targetPerReplica: number, kind = 'queue') =>
  kind === 'http' ? { name, source: 'http', url: `http://metrics.example/${name}`, targetPerReplica } : { name, source: 'queue', queueName: name, accountName: 'acct', targetPerReplica };

describe('formulas', () => {
  const rows: [string, string, Record<string, number | undefined>, number | undefined][] = [
    ['arithmetic over the sources by name', 'jobs + web / 2', { jobs: 4, web: 10 }, 9],
    ['?? falls through a missing source', 'jobs ?? web', { jobs: undefined, web: 7 }, 7],
    ['missing propagates through arithmetic up to the ??', 'jobs * 2 ?? web', { jobs: undefined, web: 3 }, 3],
    ['a present source is taken as it is, even 0', 'jobs ?? web', { jobs: 0, web: 7 }, 0],
    ['functions and a conditional', 'max(jobs, 3) > 4 ? ceil(web / 4) : 0', { jobs: 5, web: 9 }, 3],
    ['a formula that ends missing gives no value', 'jobs + web', { jobs: 1, web: undefined }, undefined],
    ['division by zero reads as missing, so ?? can catch it', 'jobs / web ?? 1', { jobs: 1, web: 0 }, 1],
  ];
  it.each(rows)('%s', (_name, text, values, want) => {
    expect(evaluateFormula(parseFormula(text, ['jobs', 'web']), values)).toBe(want);
  });

  it.each([
    ['member access', 'jobs.constructor'],
    ['a string literal', '"x" + jobs'],
    ['an unknown function', 'eval(jobs)'],
    ['a name no source has', 'jobs + other'],
    ['a call of Object.prototype\'s __proto__', '__proto__(jobs)'],
    ['a call of Object.prototype\'s constructor', 'constructor(jobs)'],
    ['a call of Object.prototype\'s toString', 'toString(jobs)'],
    ['a call of Object.prototype\'s __defineGetter__', '__defineGetter__(jobs, web)'],
  ])('refuses %s', (_name, text) => {
    expect(() => parseFormula(text, ['jobs', 'web'])).toThrow(FormulaError);
  });
});

describe('several sources, through the plan', () => {
  const two = (policy: Record<string, unknown>) => settingsOf({ load: { sources: [source('jobs', 5), source('web', 10, 'http')], ...policy }, minScale: 1, maxScaleDownRate: 1000 });
  const start = (combine: unknown, current: number) => planDriver(two(combine === undefined ? {} : { combine }), { current });
  const at = (sources: Record<string, number | 'failed'>) => ({ at: T0, load: undefined, sources });

  it.each([
    ['max (the default) takes the larger count: jobs 20/5 = 4 and web 70/10 = 7 → 7', undefined, 7],
    ['min takes the smaller: 4', 'min', 4],
    ['sum adds the counts: 11', 'sum', 11],
    ['a formula reads raw values: (20 + 70) / 10 → 9', { formula: 'jobs + web', targetPerReplica: 10 }, 9],
  ])('%s', async (_name, combine, want) => {
    expect((await start(combine, 3).step(at({ jobs: 20, web: 70 }))).scale).toBe(want);
  });

  it('a formula falls through a failing source with ??: web failing, jobs 20 → 20/5 = 4', async () => {
    expect((await start({ formula: 'web ?? jobs', targetPerReplica: 5 }, 2).step(at({ jobs: 20, web: 'failed' }))).scale).toBe(4);
  });

  it('one failing source blocks scale-down: the other asks for 2, the target keeps 6', async () => {
    expect(await start(undefined, 6).step(at({ jobs: 10, web: 'failed' }))).toMatchObject({ scale: 6, boundBy: 'SourceFailing' });
  });

  it('one failing source does not block scale-up: the other asks for 8, the target goes from 6 to 8', async () => {
    expect((await start(undefined, 6).step(at({ jobs: 40, web: 'failed' }))).scale).toBe(8);
  });

  it('with every source failing and no fallback there is no evidence: no decision', async () => {
    expect((await start(undefined, 6).step(at({ jobs: 'failed', web: 'failed' }))).scale).toBeUndefined();
  });

  it.each([
    ['static', 6, 3],
    ['currentReplicas', 6, 6],
    ['currentReplicasIfHigher', 2, 3],
    ['currentReplicasIfLower', 6, 3],
  ])('all sources failing past the threshold give the fallback replicas per behaviour: %s from %i → %i, in both directions', async (behavior, current, want) => {
    const settings = settingsOf({ load: { sources: [source('jobs', 5), source('web', 10, 'http')] }, minScale: 1, maxScaleDownRate: 1000, fallback: { failureThreshold: 2, replicas: 3, behavior } });
    const d = planDriver(settings, { current });
    const seen = [];
    for (const i of [0, 1, 2]) seen.push(await d.step({ at: T0 + i * SECOND, load: undefined, sources: { jobs: 'failed', web: 'failed' } }));
    expect(seen.map((o) => o.scale)).toEqual([undefined, undefined, want]);
    expect(seen[2]!.boundBy).toBe('FallbackActive');
  });
});

/**
 * The fallback engages for the sources as a whole (issue 31): a source past the threshold
 * while another answers is one more failing source, missing in the formula, so `??` applies
 * and nothing is lowered; only with every source past it do the fallback's replicas stand.
 */
describe('one source failing past the fallback threshold while another answers, through the plan', () => {
  type Row = [sentence: string, sources: Record<string, number | 'failed'>, want: { scale: number | undefined; boundBy?: string }];
  const settings = settingsOf({
    load: { sources: [source('a', 1), source('b', 1, 'http')], combine: { formula: 'a + (b ?? 0)', targetPerReplica: 1 } },
    minScale: 1,
    maxScale: 100,
    maxScaleDownRate: 1000,
    fallback: { failureThreshold: 1, replicas: 1 },
  });
  const rows: Row[] = [
    ['b fails once (not past the threshold): the target follows a, 6 → 40', { a: 40, b: 'failed' }, { scale: 40 }],
    ['b fails again, past the threshold: still a\'s 40, not the fallback\'s 1', { a: 40, b: 'failed' }, { scale: 40 }],
    ['a asks for 3 while b fails: nothing is lowered, 40 is kept', { a: 3, b: 'failed' }, { scale: 40, boundBy: 'SourceFailing' }],
    ['a asks for 55 while b fails: a rise is followed', { a: 55, b: 'failed' }, { scale: 55 }],
    ['a fails once too (b past the threshold, a not): no evidence, nothing decided', { a: 'failed', b: 'failed' }, { scale: undefined }],
    ['both past the threshold: the fallback\'s 1 replica, in both directions', { a: 'failed', b: 'failed' }, { scale: 1, boundBy: 'FallbackActive' }],
    ['a answers again (b still past the threshold): the target follows a up from the fallback', { a: 30, b: 'failed' }, { scale: 30 }],
  ];
  it('runs the rows in order, each a reconcile, from a workload of 6', async () => {
    const d = planDriver(settings, { current: 6 });
    const seen: [string, { scale: number | undefined; boundBy?: string }][] = [];
    for (const [i, [sentence, sources, want]] of rows.entries()) {
      const out = await d.step({ at: T0 + i * SECOND, load: undefined, sources });
      seen.push([sentence, 'boundBy' in want ? { scale: out.scale, boundBy: out.boundBy } : { scale: out.scale }]);
    }
    expect(seen).toEqual(rows.map(([sentence, , want]) => [sentence, want]));
  });

  it('sources named __proto__ and constructor keep failure counts of their own: no evidence, then the fallback', async () => {
    const named = (name: string) => ({ name, source: 'queue', queueName: 'q', accountName: 'acct', targetPerReplica: 1 });
    const d = planDriver(settingsOf({ load: { sources: [named('__proto__'), named('constructor')], combine: { formula: '__proto__ ?? constructor', targetPerReplica: 1 } }, minScale: 1, maxScaleDownRate: 1000, fallback: { failureThreshold: 1, replicas: 3 } }), { current: 6 });
    // An object literal's __proto__ would set its prototype: the names are given as entries.
    const sources = Object.fromEntries([['__proto__', 'failed'], ['constructor', 'failed']]) as Record<string, 'failed'>;
    const seen = [];
    for (const i of [0, 1]) seen.push(await d.step({ at: T0 + i * SECOND, load: undefined, sources }));
    expect(seen.map((o) => [o.scale, o.boundBy])).toEqual([[undefined, 'NoEvidence'], [3, 'FallbackActive']]);
  });

  it.each(['min', 'sum', 'max'])('%s over a at 40 and b past the threshold: a\'s 40, never the fallback\'s 1', async (combine) => {
    const d = planDriver(settingsOf({ load: { sources: [source('a', 1), source('b', 1, 'http')], combine }, minScale: 1, maxScale: 100, maxScaleDownRate: 1000, fallback: { failureThreshold: 1, replicas: 1 } }), { current: 6 });
    const sources = { a: 40, b: 'failed' as const };
    await d.step({ at: T0, load: undefined, sources });
    expect((await d.step({ at: T0 + SECOND, load: undefined, sources })).scale).toBe(40);
  });
});

describe('a queue target without an activator, through the plan', () => {
  const queue = { source: 'queue', queueName: 'jobs', accountName: 'acct', targetPerReplica: 1 };

  it('wakes 0 → 1 on a message, and after the cooldown steps back down to 0 through the rate limit, never N → 0', async () => {
    const d = planDriver(settingsOf({ load: queue, cooldown: '5m' }), { current: 0, conditions: inactiveFor(10 * MINUTE) });
    expect((await d.step({ at: T0, load: 0 })).scale).toBe(0);
    expect((await d.step({ at: T0 + 15 * SECOND, load: 1 })).scale).toBe(1);
    expect((await d.step({ at: T0 + 30 * SECOND, load: 6 })).scale).toBe(6);
    const steps = [];
    for (let t = 45; t <= 420; t += 15) steps.push([t, await d.step({ at: T0 + t * SECOND, load: 0 })] as const);
    // 6 → 3 → 1 by the rate limit, 1 held until 5 minutes after the last message (t = 30 s), then 0.
    expect(steps.slice(0, 3).map(([, o]) => o.scale)).toEqual([3, 1, 1]);
    const zeroAt = steps.find(([, o]) => o.scale === 0)![0];
    expect(zeroAt).toBe(330 + 15);
    expect(steps.find(([t]) => t === 330)![1].boundBy).toBe('CooldownPending');
    expect(steps.filter(([, o]) => o.written).map(([, o]) => o.written)).toEqual([[6, 3], [3, 1], [1, 0]]);
  });

  it('at zero, one source past the fallback threshold while the other answers 0 does not wake it; both past it wake it to the fallback', async () => {
    const sources = [source('a', 1), source('b', 1)];
    const d = planDriver(settingsOf({ load: { sources }, minScale: 0, fallback: { failureThreshold: 1, replicas: 2 } }), { current: 0, conditions: inactiveFor(10 * MINUTE) });
    const seen = [];
    for (const [i, a] of ([0, 0, 'failed', 'failed'] as const).entries()) seen.push(await d.step({ at: T0 + i * SECOND, load: undefined, sources: { a, b: 'failed' } }));
    expect(seen.map((o) => [o.scale, o.boundBy])).toEqual([[0, undefined], [0, undefined], [undefined, 'NoEvidence'], [2, 'FallbackActive']]);
  });

  it('does not wake for a value at its activation threshold, only above it', async () => {
    const d = planDriver(settingsOf({ load: { ...queue, activationThreshold: 2 } }), { current: 0, conditions: inactiveFor(10 * MINUTE) });
    expect([(await d.step({ at: T0, load: 2 })).scale, (await d.step({ at: T0 + SECOND, load: 3 })).scale]).toEqual([0, 3]);
  });
});

describe('schedules', () => {
  const office: Schedule = { cron: '0 9 * * *', durationMs: 8 * 60 * MINUTE, timezone: 'Europe/Berlin', minScale: 5 };
  const utc = (iso: string) => Date.parse(iso);

  it.each([
    ['Saturday before the spring change, 08:59 in Berlin (07:59 UTC, CET): closed', '2026-03-28T07:59:00Z', false],
    ['Saturday, 09:00 in Berlin (08:00 UTC): open', '2026-03-28T08:00:00Z', true],
    ['Saturday, 16:59 in Berlin (15:59 UTC): open', '2026-03-28T15:59:00Z', true],
    ['Saturday, 17:00 in Berlin (16:00 UTC): closed', '2026-03-28T16:00:00Z', false],
    ['Sunday after the change, 08:59 in Berlin (06:59 UTC, CEST): closed', '2026-03-29T06:59:00Z', false],
    ['Sunday, 09:00 in Berlin (07:00 UTC): open', '2026-03-29T07:00:00Z', true],
    ['Sunday, 16:59 in Berlin (14:59 UTC): open', '2026-03-29T14:59:00Z', true],
    ['Sunday, 17:00 in Berlin (15:00 UTC): closed', '2026-03-29T15:00:00Z', false],
    ['the autumn change, Sunday 09:00 in Berlin (08:00 UTC, CET again): open', '2026-10-25T08:00:00Z', true],
  ])('a floor of 5 from 09:00 to 17:00 Europe/Berlin: %s', (_name, iso, open) => {
    expect(isOpen(office, utc(iso))).toBe(open);
  });

  it('overlapping windows take the highest floor and the lowest ceiling, and a floor wins over a ceiling below it, as minScale over maxScale', () => {
    const always = (over: Partial<Schedule>): Schedule => ({ cron: '* * * * *', durationMs: 2 * MINUTE, timezone: 'UTC', ...over });
    const now = utc('2026-03-29T12:00:30Z');
    expect(scheduledBounds(1, Infinity, [always({ minScale: 3 }), always({ minScale: 5 }), always({ maxScale: 8 }), always({ maxScale: 6 })], now)).toMatchObject({ minScale: 5, maxScale: 6 });
    expect(scheduledBounds(1, Infinity, [always({ minScale: 9 }), always({ maxScale: 4 })], now)).toMatchObject({ minScale: 9, maxScale: 9 });
  });
});

describe('the state kept in the record', () => {
  it('a recommendation history stays within its cap, and a merged entry holds both what it said', () => {
    let history = [{ at: T0, low: 5, high: 5 }];
    // Rising values: no entry covers an older one, so the cap is kept by merging.
    for (let i = 1; i <= 3 * MAX_HISTORY; i++) history = stabilize(5 + i, 5, { scaleDown: rules({ stabilizationWindowMs: 24 * 60 * MINUTE }) }, history, T0 + i * SECOND).history;
    expect(history.length).toBe(MAX_HISTORY);
  });

  it('past the cap an entry that a newer one covers goes first, so the decisions are those of the whole history', () => {
    let history = [{ at: T0, low: 5, high: 5 }];
    for (let i = 1; i <= 3 * MAX_HISTORY; i++) history = stabilize(i % 2 === 0 ? 1 : 9, 5, { scaleDown: rules({ stabilizationWindowMs: 24 * 60 * MINUTE }) }, history, T0 + i * SECOND).history;
    const last = 3 * MAX_HISTORY;
    const said = (at: number) => (at === T0 ? 5 : ((at - T0) / SECOND) % 2 === 0 ? 1 : 9);
    expect(history.length).toBeLessThan(MAX_HISTORY);
    // Nothing merged: every entry says what was recommended at its time, the newest 1 and 9 among them.
    expect(history.every((r) => r.low === r.high && r.high === said(r.at))).toBe(true);
    expect(history.map((r) => (r.at - T0) / SECOND)).toEqual(expect.arrayContaining([last - 1, last]));
    expect(boundedRecommendations([...history, { at: T0 - 1, low: 0, high: 20 }]).some((r) => r.low === 0 && r.high === 20)).toBe(true);
  });
});
