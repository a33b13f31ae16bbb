// Upstream pa_lifecycle_test rows (2020) for the condition helpers, plus the transition-time rule.
import { describe, expect, it } from 'vitest';
import {
  activeFor,
  canFailActivation,
  canScaleToZero,
  conditionsFromActive,
  initializeConditions,
  isActivating,
  isReady,
  markActivating,
  markActive,
  markInactive,
  type Condition,
  type ConditionStatus,
  type TargetConditions,
} from '../../src/scaler/read/conditions.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const SECOND = 1000;
const LONG_AGO = 0;

const cond = (status: ConditionStatus, ago?: number): Condition => ({
  status,
  lastTransitionTime: ago === undefined ? LONG_AGO : NOW - ago,
});
const activeOnly = (status: ConditionStatus, ago?: number): TargetConditions => ({ active: cond(status, ago) });

describe('canScaleToZero', () => {
  it.each([
    { name: 'empty status: no', conditions: {}, grace: 10 * SECOND, want: false },
    { name: 'active: no', conditions: activeOnly('True', 30 * SECOND), grace: 10 * SECOND, want: false },
    { name: 'inactive since long ago: yes', conditions: activeOnly('False'), grace: 10 * SECOND, want: true },
    { name: 'inactive for 30 s, grace 10 s: yes', conditions: activeOnly('False', 30 * SECOND), grace: 10 * SECOND, want: true },
    { name: 'inactive for 10 s, grace 30 s: no', conditions: activeOnly('False', 10 * SECOND), grace: 30 * SECOND, want: false },
    { name: 'inactive for exactly the grace period: no (strict)', conditions: activeOnly('False', 30 * SECOND), grace: 30 * SECOND, want: false },
  ])('$name', ({ conditions, grace, want }) => {
    expect(canScaleToZero(conditions, NOW, grace)).toBe(want);
  });
});

describe('activeFor', () => {
  it.each([
    { name: 'empty status: -1', conditions: {}, want: -1 },
    { name: 'activating: -1', conditions: activeOnly('Unknown', 30 * SECOND), want: -1 },
    { name: 'inactive: -1', conditions: activeOnly('False', 30 * SECOND), want: -1 },
    { name: 'active since long ago: all of it', conditions: activeOnly('True'), want: NOW },
    { name: 'active for 30 s', conditions: activeOnly('True', 30 * SECOND), want: 30 * SECOND },
    { name: 'active for 10 s', conditions: activeOnly('True', 10 * SECOND), want: 10 * SECOND },
  ])('$name', ({ conditions, want }) => {
    expect(activeFor(conditions, NOW)).toBe(want);
  });
});

describe('canFailActivation', () => {
  it.each([
    { name: 'empty status: no', conditions: {}, timeout: 10 * SECOND, want: false },
    { name: 'active: no', conditions: activeOnly('True', 30 * SECOND), timeout: 10 * SECOND, want: false },
    { name: 'activating since long ago: yes', conditions: activeOnly('Unknown'), timeout: 10 * SECOND, want: true },
    { name: 'activating for 30 s, timeout 10 s: yes', conditions: activeOnly('Unknown', 30 * SECOND), timeout: 10 * SECOND, want: true },
    { name: 'activating for 10 s, timeout 30 s: no', conditions: activeOnly('Unknown', 10 * SECOND), timeout: 30 * SECOND, want: false },
    { name: 'activating for exactly the timeout: no (strict)', conditions: activeOnly('Unknown', 30 * SECOND), timeout: 30 * SECOND, want: false },
  ])('$name', ({ conditions, timeout, want }) => {
    expect(canFailActivation(conditions, NOW, timeout)).toBe(want);
  });
});

describe('isActivating', () => {
  it.each([
    { name: 'empty status: no', conditions: {}, want: false },
    { name: 'Active Unknown: yes', conditions: activeOnly('Unknown'), want: true },
    { name: 'Active True: no', conditions: activeOnly('True'), want: false },
    { name: 'Active False: no', conditions: activeOnly('False'), want: false },
  ])('$name', ({ conditions, want }) => {
    expect(isActivating(conditions)).toBe(want);
  });
});

describe('isReady', () => {
  it.each<{ name: string; conditions: TargetConditions; want: boolean }>([
    { name: 'empty status: no', conditions: {}, want: false },
    { name: 'only Active True: no', conditions: activeOnly('True'), want: false },
    { name: 'Ready False: no', conditions: { ready: cond('False') }, want: false },
    { name: 'Ready Unknown: no', conditions: { ready: cond('Unknown') }, want: false },
    { name: 'Ready True: yes', conditions: { ready: cond('True') }, want: true },
    { name: 'Active True and Ready True: yes', conditions: { active: cond('True'), ready: cond('True') }, want: true },
    { name: 'Active True and Ready False: no', conditions: { active: cond('True'), ready: cond('False') }, want: false },
  ])('$name', ({ conditions, want }) => {
    expect(isReady(conditions)).toBe(want);
  });
});

describe('typical flow', () => {
  it('moves Active and Ready together through initialize, active, inactive, activating, active', () => {
    const statuses = (c: TargetConditions) => [c.active?.status, c.ready?.status];
    let c = initializeConditions({}, NOW);
    expect(statuses(c)).toEqual(['Unknown', 'Unknown']);
    c = markActive(c, NOW + 1);
    expect(statuses(c)).toEqual(['True', 'True']);
    c = markActive(c, NOW + 2);
    expect(statuses(c)).toEqual(['True', 'True']);
    c = markInactive(c, NOW + 3);
    expect(statuses(c)).toEqual(['False', 'False']);
    c = markActivating(c, NOW + 4);
    expect(statuses(c)).toEqual(['Unknown', 'Unknown']);
    c = markActive(c, NOW + 5);
    expect(statuses(c)).toEqual(['True', 'True']);
  });
});

describe('last transition time', () => {
  const T0 = NOW - 60 * SECOND;
  it.each<{ name: string; from: TargetConditions; mark: (c: TargetConditions) => TargetConditions; want: number }>([
    { name: 'marking active again keeps the time', from: markActive({}, T0), mark: (c) => markActive(c, NOW), want: T0 },
    { name: 'marking inactive again keeps the time', from: markInactive({}, T0), mark: (c) => markInactive(c, NOW), want: T0 },
    {
      name: 'marking inactive with another reason keeps the time',
      from: markInactive({}, T0, 'TimedOut'),
      mark: (c) => markInactive(c, NOW, 'NoTraffic'),
      want: T0,
    },
    { name: 'marking activating again keeps the time', from: markActivating({}, T0), mark: (c) => markActivating(c, NOW), want: T0 },
    { name: 'active to inactive stamps now', from: markActive({}, T0), mark: (c) => markInactive(c, NOW), want: NOW },
    { name: 'inactive to activating stamps now', from: markInactive({}, T0), mark: (c) => markActivating(c, NOW), want: NOW },
    { name: 'activating to active stamps now', from: markActivating({}, T0), mark: (c) => markActive(c, NOW), want: NOW },
    { name: 'initializing keeps an existing condition', from: markInactive({}, T0), mark: (c) => initializeConditions(c, NOW), want: T0 },
  ])('$name', ({ from, mark, want }) => {
    const after = mark(from);
    expect([after.active?.lastTransitionTime, after.ready?.lastTransitionTime]).toEqual([want, want]);
  });

  it('records the reason of the latest mark', () => {
    const c = markInactive(markInactive({}, NOW - SECOND, 'TimedOut'), NOW, 'NoTraffic');
    expect(c.active).toEqual({ status: 'False', lastTransitionTime: NOW - SECOND, reason: 'NoTraffic' });
  });

  it('marking active again keeps the reason it became active with (how it was adopted); a change of status drops it', () => {
    const adopted = markActive({}, NOW - SECOND, 'AdoptedActive');
    expect(markActive(adopted, NOW).active).toEqual({ status: 'True', lastTransitionTime: NOW - SECOND, reason: 'AdoptedActive' });
    expect(markActive(markActivating(adopted, NOW), NOW).active).toEqual({ status: 'True', lastTransitionTime: NOW });
  });
});

describe('initializeConditions', () => {
  it.each<{ name: string; from: TargetConditions; want: [ConditionStatus, ConditionStatus] }>([
    { name: 'nothing yet: both Unknown', from: {}, want: ['Unknown', 'Unknown'] },
    { name: 'Ready True without Active: Active True', from: { ready: cond('True') }, want: ['True', 'True'] },
    { name: 'Ready False without Active: Active Unknown', from: { ready: cond('False') }, want: ['Unknown', 'False'] },
    { name: 'Active False without Ready: Ready Unknown', from: { active: cond('False') }, want: ['False', 'Unknown'] },
  ])('$name', ({ from, want }) => {
    const c = initializeConditions(from, NOW);
    expect([c.active?.status, c.ready?.status]).toEqual(want);
  });
});

describe('conditionsFromActive', () => {
  it('rebuilds Ready with the status and time of a stored Active condition', () => {
    const active = cond('False', 5 * SECOND);
    expect(conditionsFromActive(active)).toEqual({ active, ready: active });
  });
  it('leaves both missing when nothing was stored', () => {
    expect(conditionsFromActive(undefined)).toEqual({});
  });
});
