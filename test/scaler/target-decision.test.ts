// What a target's reconcile asks to be woken for, and how it reports itself.
import { describe, expect, it } from 'vitest';
import type { DesiredScale } from '../../src/load/decider.js';
import { markActivating, markActive, markInactive } from '../../src/scaler/read/conditions.js';
import type { ScalePlan } from '../../src/scaler/zero/scale-to-zero.js';
import { describeTargetDecision, followUps, type FollowUpInput } from '../../src/scaler/decide/follow-ups.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0) + 300;
const common = { requeueAfterMs: [] as number[], offerAsyncProbe: false };
const plan = (p: Partial<Extract<ScalePlan, { kind: 'apply' }>>): ScalePlan => ({ kind: 'apply', scale: 1, ...common, reason: 'desired-nonzero', ...p });
const report = (p: Partial<Extract<ScalePlan, { kind: 'report' }>>): ScalePlan => ({ kind: 'report', scale: 0, ...common, reason: 'stable-window-elapsed', ...p });
const hold = (p: Partial<Extract<ScalePlan, { kind: 'hold' }>>): ScalePlan => ({ kind: 'hold', ...common, reason: 'metrics-not-collected', ...p });
const known = (desired: number, extra: object = {}): DesiredScale => ({ kind: 'known', desired, average: desired * 10, fromLoad: desired, panic: undefined, ...extra });
const base: FollowUpInput = {
  plan: plan({}),
  desired: known(1),
  before: markActive({}, NOW - 5_000),
  after: markActive({}, NOW - 5_000),
  write: { kind: 'unchanged', current: 1 },
  kind: 'kubernetes',
  activationTimeoutMs: 600_000,
  settle: { ready: 1, requested: 1, lastScaledAt: NOW - 60_000 },
  now: NOW,
};

describe('followUps', () => {
  it.each<{ name: string; input: Partial<FollowUpInput>; want: number[] }>([
    { name: 'steady: nothing', input: {}, want: [] },
    { name: 'held at 1 for the rest of the stable window: then', input: { plan: plan({ reason: 'stable-window-pending', requeueAfterMs: [55_000] }) }, want: [NOW + 55_000] },
    { name: 'just marked inactive: a second later, to look for the activator', input: { plan: report({}), after: markInactive({}, NOW) }, want: [NOW + 1_000] },
    {
      name: 'activating: at the activation timeout counted from when it began, not from now',
      input: { plan: hold({ reason: 'activating', requeueAfterMs: [600_000] }), before: markActivating({}, NOW - 100_000), after: markActive({}, NOW) },
      want: [NOW - 100_000 + 600_001],
    },
    { name: 'a rate limit held the step back: the next 2 s tick', input: { desired: known(5, { limitedBy: 'maxScaleDownRate' }), write: { kind: 'written', from: 10, to: 5 } }, want: [Date.UTC(2026, 10, 30, 10, 0, 2)] },
    { name: 'waiting for a ready replica (Kubernetes, early): the next whole second', input: { after: markActivating({}, NOW - 2_000) }, want: [Date.UTC(2026, 10, 30, 10, 0, 1)] },
    { name: 'waiting for a ready replica (Kubernetes, long): every 10 s', input: { after: markActivating({}, NOW - 60_000) }, want: [Date.UTC(2026, 10, 30, 10, 0, 10)] },
    { name: 'waiting for running VMs of a pool: every 10 s', input: { kind: 'pool', after: markActivating({}, NOW) }, want: [Date.UTC(2026, 10, 30, 10, 0, 10)] },
    { name: 'ready replicas not yet at the scale written: look again next second', input: { settle: { ready: 3, requested: 1, lastScaledAt: NOW } }, want: [Date.UTC(2026, 10, 30, 10, 0, 1)] },
    { name: 'still not settled 5 minutes after the write: left to the timer', input: { settle: { ready: 3, requested: 1, lastScaledAt: NOW - 300_000 } }, want: [] },
    { name: 'just adopted: a second later, to decide', input: { plan: hold({ reason: 'adopted', requeueAfterMs: [1_000] }) }, want: [NOW + 1_000] },
    {
      name: 'an activation given up without a sample: no polls, left to the timer',
      input: { plan: hold({ reason: 'activation-timed-out-without-samples' }), after: markActivating({}, NOW - 700_000) },
      want: [],
    },
  ])('$name', ({ input, want }) => {
    expect(followUps({ ...base, ...input }).map((f) => f.at)).toEqual(want);
  });
});

describe('describeTargetDecision', () => {
  const load = { note: 'pushed 25' };
  const input = { plan: plan({ scale: 3 }), desired: known(3), load, wake: { kind: 'idle' } as const, dryRun: false, probe: undefined, trigger: 'forced' };

  it.each<{ name: string; write: Parameters<typeof describeTargetDecision>[0]['write']; decision: string; error?: boolean }>([
    { name: 'a write', write: { kind: 'written', from: 0, to: 3 }, decision: 'scaled 0 → 3' },
    { name: 'a dry run', write: { kind: 'would', from: 0, to: 3 }, decision: 'would scale 0 → 3' },
    { name: 'a failed write: an error that may pass', write: { kind: 'failed', from: 0, to: 3, error: 'HTTP 500', transient: true }, decision: 'scaling 0 → 3 failed', error: true },
    { name: 'a failed write: an error that will not pass', write: { kind: 'failed', from: 0, to: 3, error: 'HTTP 403', transient: false }, decision: 'scaling 0 → 3 failed' },
    { name: 'nothing to write', write: { kind: 'unchanged', current: 3 }, decision: 'steady at 3' },
    { name: 'the target could not be read: an error that may pass', write: { kind: 'unread', error: 'HTTP 500', transient: true }, decision: 'target unreadable', error: true },
  ])('$name', ({ write, decision, error }) => {
    const got = describeTargetDecision({ ...input, write });
    expect(got.decision).toBe(decision);
    expect(got.reason).toMatch(/load: pushed 25; desired 3 from an average load of 30(; .*)? \(forced\)$/);
    expect(got.transient === true).toBe(error === true);
  });

  it('reports the activation latency of a wake', () => {
    const got = describeTargetDecision({ ...input, write: { kind: 'written', from: 0, to: 3 }, wake: { kind: 'woke', since: 0, readyAt: 2_000, latencyMs: 2_000 } });
    expect(got.reason).toMatch(/woke from zero in 2000 ms/);
  });
});
