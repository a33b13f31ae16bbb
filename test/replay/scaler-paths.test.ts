// Replay goes through the scaler's other paths too: the activation timeout, decided by the same functions a reconcile runs.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { replayTrace } from '../../src/replay/replay.js';
import { parseReplaySchedule } from '../../src/replay/schedule.js';
import type { TraceRow } from '../../src/replay/trace.js';

const schedule = parseReplaySchedule('0 */1 * * * *');

function rows(seconds: number, load: (s: number) => number): TraceRow[] {
  return Array.from({ length: seconds + 1 }, (_, s) => ({ at: s * 1000, target: undefined, load: load(s), line: s + 2 }));
}

/** One Deployment `web` behind an activator that never answers; `target` adds its load source and the rest. */
function deploymentConfig(target: Record<string, unknown>) {
  return parseConfig({
    kubernetes: {},
    targets: [
      {
        name: 'web',
        scaleTargetRef: { kind: 'Deployment', name: 'web' },
        policy: 'knative',
        activator: { probeUrl: 'http://127.0.0.1:1/healthz' },
        ...target,
      },
    ],
  });
}

describe('replay through the scaler', () => {
  it('replicas that never get ready and the load gone: back to zero only when the activation timeout has passed, no latency measured', async () => {
    const config = deploymentConfig({ activationTimeout: '60s', load: { source: 'push', targetPerReplica: 10 } });
    // Load for 10 s, then none: the target, still activating, may only go back to zero once the timeout has passed.
    const [web] = await replayTrace(config, rows(100, (s) => (s < 10 ? 25 : 0)), { readyDelayMs: 3_600_000, schedule });
    const scales = [...web!.timeline.rows()].map((r) => [r.at, r.scale]);
    expect(scales[0]).toEqual([0, 3]);
    const backToZero = scales.find(([, scale]) => scale === 0);
    expect(backToZero?.[0]).toBeGreaterThan(60_000);
    expect(backToZero?.[0]).toBeLessThanOrEqual(62_000);
    expect(web!.summary.activationLatenciesMs).toEqual([]);
  });

  it('an http source is read at every reconcile and polled every pollInterval: each reading is the last row at or before it', async () => {
    const load = (pollInterval: string) => ({ load: { source: 'http', url: 'http://127.0.0.1:1/load', targetPerReplica: 10, pollInterval } });
    const trace: TraceRow[] = [
      { at: 0, target: undefined, load: 0, line: 2 },
      { at: 30_000, target: undefined, load: 45, line: 3 },
      { at: 90_000, target: undefined, load: 45, line: 4 },
    ];
    const [every15s] = await replayTrace(deploymentConfig(load('15s')), trace, { readyDelayMs: 0, schedule });
    // Adopted at 0 s, its follow-up at 1 s, polls at 15 s and 30 s: the 30 s poll reads 45 and the
    // window holds 0, 0, 0 and 45: ceil(11.25 ÷ 10) = 2, half a minute before the timer would.
    expect([...every15s!.timeline.rows()].find((r) => r.scale > 0)).toMatchObject({ at: 30_000, scale: 2 });
    const [every60s] = await replayTrace(deploymentConfig(load('60s')), trace, { readyDelayMs: 0, schedule });
    // Polled on the minute, with the timer: at 60 s the window holds 0 (1 s) and 45 (60 s; 0 s is
    // on its edge, outside): ceil(22.5 ÷ 10) = 3, and nothing scales before.
    expect([...every60s!.timeline.rows()].find((r) => r.scale > 0)).toMatchObject({ at: 60_000, scale: 3 });
  });

  it('a target with several sources: each reads the trace, the sources combine, and a queue-driven one sleeps after its cooldown', async () => {
    const config = parseConfig({
      kubernetes: {},
      targets: [
        {
          name: 'jobs',
          scaleTargetRef: { kind: 'Deployment', name: 'jobs' },
          policy: 'knative',
          cooldown: '30s',
          load: {
            sources: [
              { name: 'small', source: 'queue', queueName: 'a', accountName: 'acct', targetPerReplica: 10 },
              { name: 'big', source: 'queue', queueName: 'b', accountName: 'acct', targetPerReplica: 5 },
            ],
            pollInterval: '5s',
          },
        },
      ],
    });
    // 40 messages for a minute, then none: max(40 ÷ 10, 40 ÷ 5) = 8, then down and asleep.
    const [jobs] = await replayTrace(config, rows(180, (s) => (s < 60 ? 40 : 0)), { readyDelayMs: 0, initialScale: 0, schedule });
    const scales = [...jobs!.timeline.rows()].map((r) => [r.at, r.scale] as const);
    expect(Math.max(...scales.map(([, scale]) => scale))).toBe(8);
    const zero = scales.find(([at, scale]) => at > 60_000 && scale === 0);
    expect(zero?.[0]).toBeGreaterThan(90_000);
    // The last write before zero is from 1.
    const before = scales.filter(([at]) => at < zero![0]).at(-1);
    expect(before?.[1]).toBe(1);
  });
});
