/**
 * The policy modules' own rules, as sentences: formulas, combining sources, failing sources and
 * fallback, the queue target's sleep and wake without an activator, schedules across DST, and
 * the bounded histories and state the record keeps.
 */
import { describe, expect, it } from 'vitest';
import { evaluateFormula, FormulaError, parseFormula } from '../../src/scaler/policy/formula.js';
import { boundedRecommendations, MAX_HISTORY } from '../../src/scaler/policy/history.js';
import { isOpen, scheduledBounds, type Schedule } from '../../src/scaler/policy/schedules.js';
import { decodePolicyState, encodePolicyState, EMPTY_POLICY_STATE } from '../../src/scaler/policy/state.js';
import { stabilize } from '../../src/scaler/policy/behavior.js';
import { MINUTE, OPEN_DECIDER, SECOND, T0, driver, rules, settingsFrom } from './policy-support.js';

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
  ])('refuses %s', (_name, text) => {
    expect(() => parseFormula(text, ['jobs', 'web'])).toThrow(FormulaError);
  });
});

describe('several sources', () => {
  const two = (combine: unknown) => settingsFrom({ load: { sources: [source('jobs', 5), source('web', 10, 'http')], combine } });
  const start = (combine: unknown, current: number) => driver(two(combine), { decider: OPEN_DECIDER, minScale: 1, maxScale: 0, since: T0 - MINUTE }, current);

  it.each([
    ['max (the default) takes the larger count: jobs 20/5 = 4 and web 70/10 = 7 → 7', undefined, 7],
    ['min takes the smaller: 4', 'min', 4],
    ['sum adds the counts: 11', 'sum', 11],
    ['a formula reads raw values: (20 + 70) / 10 → 9', { formula: 'jobs + web', targetPerReplica: 10 }, 9],
  ])('%s', (_name, combine, want) => {
    expect(start(combine, 3).run({ at: T0, values: { jobs: 20, web: 70 } }).desired).toBe(want);
  });

  it('a formula falls through a failing source with ??: web failing, jobs 20 → 20/5 = 4', () => {
    expect(start({ formula: 'web ?? jobs', targetPerReplica: 5 }, 2).run({ at: T0, values: { jobs: 20, web: 'failed' } }).desired).toBe(4);
  });

  it('one failing source blocks scale-down: the other asks for 2, the target keeps 6', () => {
    const out = start(undefined, 6).run({ at: T0, values: { jobs: 10, web: 'failed' } });
    expect([out.desired, out.boundBy]).toEqual([6, ['SourceFailing']]);
  });

  it('one failing source does not block scale-up: the other asks for 8, the target goes from 6 to 8', () => {
    expect(start(undefined, 6).run({ at: T0, values: { jobs: 40, web: 'failed' } }).desired).toBe(8);
  });

  it('with every source failing and no fallback there is no evidence: no decision', () => {
    expect(start(undefined, 6).run({ at: T0, values: { jobs: 'failed', web: 'failed' } }).desired).toBeUndefined();
  });

  it.each([
    ['static', 6, 3],
    ['currentReplicas', 6, 6],
    ['currentReplicasIfHigher', 2, 3],
    ['currentReplicasIfLower', 6, 3],
  ])('all sources failing past the threshold give the fallback replicas per behaviour: %s from %i → %i, in both directions', (behavior, current, want) => {
    const settings = settingsFrom({ load: { sources: [source('jobs', 5), source('web', 10, 'http')] }, fallback: { failureThreshold: 2, replicas: 3, behavior } });
    const d = driver(settings, { decider: OPEN_DECIDER, minScale: 0, maxScale: 0, since: T0 - MINUTE }, current);
    const seen = [0, 1, 2].map((i) => d.run({ at: T0 + i * SECOND, values: { jobs: 'failed', web: 'failed' } }));
    expect(seen.map((o) => o.desired)).toEqual([undefined, undefined, want]);
    expect(seen[2]!.boundBy).toContain('FallbackActive');
  });
});

describe('a queue target without an activator', () => {
  const settings = settingsFrom({ load: { source: 'queue', queueName: 'jobs', accountName: 'acct', targetPerReplica: 1 }, cooldown: '5m' });
  const decider = { ...OPEN_DECIDER, maxScaleDownRate: 2 };

  it('wakes 0 → 1 on a message, and after the cooldown steps back down to 0 through the rate limit, never N → 0', () => {
    const d = driver(settings, { decider, minScale: 0, maxScale: 0, since: T0 - 10 * MINUTE }, 0);
    expect(d.run({ at: T0, values: { load: 0 } }).desired).toBe(0);
    expect(d.run({ at: T0 + 15 * SECOND, values: { load: 1 } }).desired).toBe(1);
    expect(d.run({ at: T0 + 30 * SECOND, values: { load: 6 } }).desired).toBe(6);
    const steps = [];
    for (let t = 45; t <= 420; t += 15) steps.push([t, d.run({ at: T0 + t * SECOND, values: { load: 0 } })] as const);
    const writes = steps.map(([, o]) => o.desired);
    // 6 → 3 → 1 by the rate limit, 1 held until 5 minutes after the last message (t = 30 s), then 0.
    expect(writes.slice(0, 3)).toEqual([3, 1, 1]);
    const zeroAt = steps.find(([, o]) => o.desired === 0)![0];
    expect(zeroAt).toBe(330 + 15);
    expect(steps.find(([t]) => t === 330)![1].boundBy).toEqual(['CooldownPending']);
    expect(d.current).toBe(0);
  });

  it('does not wake for a value at its activation threshold, only above it', () => {
    const d = driver(settingsFrom({ load: { source: 'queue', queueName: 'jobs', accountName: 'acct', targetPerReplica: 1, activationThreshold: 2 } }), { decider, minScale: 0, maxScale: 0, since: T0 }, 0);
    expect([d.run({ at: T0, values: { load: 2 } }).desired, d.run({ at: T0 + SECOND, values: { load: 3 } }).desired]).toEqual([0, 3]);
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

  it('while the window is open the decision is raised to the floor, named ScheduledFloor; after it, the load decides', () => {
    const settings = settingsFrom({ load: { source: 'queue', queueName: 'jobs', accountName: 'acct', targetPerReplica: 10 }, schedules: [{ cron: '0 9 * * *', duration: '8h', timezone: 'Europe/Berlin', minScale: 5 }] });
    const d = driver(settings, { decider: OPEN_DECIDER, minScale: 1, maxScale: 0, since: utc('2026-03-29T00:00:00Z') }, 1);
    const open = d.run({ at: utc('2026-03-29T07:00:00Z'), values: { load: 10 } });
    expect([open.desired, open.minScale, open.boundBy]).toEqual([5, 5, ['ScheduledFloor']]);
    expect(d.run({ at: utc('2026-03-29T15:00:00Z'), values: { load: 10 } }).desired).toBe(1);
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

  it('reads back what it wrote, and a damaged text reads as nothing remembered', () => {
    const state = { ...EMPTY_POLICY_STATE, failures: { jobs: 2 }, lastActiveAt: T0, initialized: true, delay: [{ index: 3, value: 4 }] };
    expect(decodePolicyState(encodePolicyState(state))).toEqual(state);
    expect(decodePolicyState('{not json')).toEqual(EMPTY_POLICY_STATE);
    expect(decodePolicyState(undefined)).toEqual(EMPTY_POLICY_STATE);
  });
});
