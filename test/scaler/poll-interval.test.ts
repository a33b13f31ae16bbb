// load.pollInterval: an http or queue target asks, at every reconcile, for the next instant of
// its poll grid (multiples of the interval), so chains started by the timer, a push or a forced
// reconcile meet on the same instants; push targets keep reconciling on messages only.
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { markActive } from '../../src/scaler/read/conditions.js';
import { followUps, POLL_WHY, type FollowUpInput } from '../../src/scaler/decide/follow-ups.js';
import { targetSettings } from '../../src/scaler/read/target-settings.js';

const NOW = Date.UTC(2026, 11, 1, 10, 0, 7, 300);
const active = markActive({}, NOW - 600_000);
const steady: FollowUpInput = {
  plan: { kind: 'apply', scale: 2, reason: 'desired-nonzero', requeueAfterMs: [], offerAsyncProbe: false },
  desired: { kind: 'known', desired: 2, average: 20, fromLoad: 2, panic: undefined },
  before: active,
  after: active,
  write: { kind: 'unchanged', current: 2 },
  kind: 'kubernetes',
  activationTimeoutMs: 600_000,
  settle: { ready: 2, requested: 2, lastScaledAt: undefined },
  now: NOW,
};

function target(load: Record<string, unknown> | undefined) {
  const parsed = configSchema.parse({
    kubernetes: { kubeconfig: '/dev/null' },
    targets: [{ name: 'web', minScale: 1, scaleTargetRef: { kind: 'Deployment', name: 'web' }, ...(load ? { load } : {}) }],
  });
  return parsed.targets[0]!;
}

describe('load.pollInterval', () => {
  it.each([
    { name: 'an http source without pollInterval: every 15 s', load: { source: 'http', url: 'http://127.0.0.1:1/', targetPerReplica: 1 }, want: 15_000 },
    { name: 'an http source polled every 2 s', load: { source: 'http', url: 'http://127.0.0.1:1/', targetPerReplica: 1, pollInterval: '2s' }, want: 2_000 },
    { name: 'a queue source polled every minute', load: { source: 'queue', queueName: 'jobs', accountName: 'acct', targetPerReplica: 1, pollInterval: '1m' }, want: 60_000 },
    { name: 'a push source: never polled', load: { source: 'push', targetPerReplica: 1 }, want: undefined },
    { name: 'no load source: never polled', load: undefined, want: undefined },
  ])('$name', ({ load, want }) => {
    expect(targetSettings(target(load), 1).pollIntervalMs).toBe(want);
  });

  it('asks for the next multiple of the interval, whenever the reconcile ran', () => {
    const polls = (input: FollowUpInput) => followUps(input).filter((w) => w.why === POLL_WHY).map((w) => w.at);
    expect(polls({ ...steady, pollIntervalMs: 15_000 })).toEqual([Date.UTC(2026, 11, 1, 10, 0, 15)]);
    // Two reconciles a moment apart (a timer pass and a push) ask for the same instant.
    expect(polls({ ...steady, now: NOW + 900, pollIntervalMs: 15_000 })).toEqual([Date.UTC(2026, 11, 1, 10, 0, 15)]);
    expect(polls({ ...steady, pollIntervalMs: 2_000 })).toEqual([Date.UTC(2026, 11, 1, 10, 0, 8)]);
    expect(polls(steady)).toEqual([]);
  });
});
