// The hand-computed trace through the replay: 10 min at 45 (10 per replica), 10 min
// idle, 5 min at 25; stable window 60 s, grace 30 s, ready delay 5 s, starting at zero.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { replayTrace } from '../../src/replay/replay.js';
import { parseReplaySchedule } from '../../src/replay/schedule.js';
import type { TimelineRow } from '../../src/replay/timeline.js';
import type { TraceRow } from '../../src/replay/trace.js';

function handConfig(targetPerReplica = 10) {
  return parseConfig({
    kubernetes: {},
    targets: [
      {
        name: 'web',
        scaleTargetRef: { kind: 'Deployment', name: 'web' },
        policy: 'knative',
        activator: { probeUrl: 'http://127.0.0.1:1/healthz' },
        scaleToZero: { stableWindow: '60s', gracePeriod: '30s' },
        load: { source: 'push', targetPerReplica },
      },
    ],
  });
}

/** One push every 10 s: 45 for 10 min, 0 for 10 min, 25 for 5 min. */
function handTrace(): TraceRow[] {
  const rows: TraceRow[] = [];
  for (let s = 0; s <= 25 * 60; s += 10) rows.push({ at: s * 1000, target: undefined, load: s < 600 ? 45 : s < 1200 ? 0 : 25, line: rows.length + 2 });
  return rows;
}


const READY_DELAY_S = 5;
const options = { readyDelayMs: READY_DELAY_S * 1000, schedule: parseReplaySchedule('0 */1 * * * *') };

/** The scale the timeline shows at `seconds`. */
function scaleAt(rows: TimelineRow[], seconds: number): number {
  let scale = Number.NaN;
  for (const r of rows) if (r.at <= seconds * 1000) scale = r.scale;
  return scale;
}

describe('replay of the hand-computed trace', () => {
  it('runs 5 replicas, none while idle, then 3; two wakes; replica-minutes as by hand; short of replicas only while waking', async () => {
    const [web] = await replayTrace(handConfig(), handTrace(), options);
    const rows = [...web!.timeline.rows()];
    expect(scaleAt(rows, 0)).toBe(5);
    expect(scaleAt(rows, 599)).toBe(5);
    expect(scaleAt(rows, 1199)).toBe(0);
    expect(scaleAt(rows, 1500)).toBe(3);
    // Zero is reached within the stable window and grace period (plus reconcile spacing) of the idle start.
    const zeroAt = rows.find((r) => r.at >= 600_000 && r.scale === 0)!.at / 1000;
    expect(zeroAt).toBeGreaterThan(600 + 30);
    expect(zeroAt).toBeLessThan(600 + 60 + 30 + 10);

    const s = web!.summary;
    expect(s.peakReplicas).toBe(5);
    expect(s.wakesFromZero).toBe(2);
    // By hand: 5 × 10 min + 3 × 5 min, plus the one replica held while it went to zero.
    expect(s.replicaMinutes).toBeGreaterThan(5 * 10 + 3 * 5);
    expect(s.replicaMinutes).toBeLessThan(5 * 10 + 3 * 5 + 2);
    // Each wake is one ready delay without a ready replica; nowhere else is load above capacity.
    expect(s.underProvisionedSeconds).toBe(2 * READY_DELAY_S);
    expect(s.activationLatenciesMs).toEqual([READY_DELAY_S * 1000, READY_DELAY_S * 1000]);
  });

  it('a timeline row only when something changed, not one per sample', async () => {
    const [web] = await replayTrace(handConfig(), handTrace(), options);
    const rows = [...web!.timeline.rows()];
    expect(rows.length).toBeLessThan(handTrace().length / 10);
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1]!, rows[i]!];
      expect(b.at).toBeGreaterThan(a.at);
      expect([a.load, a.desired, a.scale, a.ready, a.boundBy]).not.toEqual([b.load, b.desired, b.scale, b.ready, b.boundBy]);
    }
  });

  it('with 5 per replica instead of 10: about twice the replica-minutes (9 against 5, then 5 against 3)', async () => {
    const [ten] = await replayTrace(handConfig(10), handTrace(), options);
    const [five] = await replayTrace(handConfig(5), handTrace(), options);
    expect(five!.summary.peakReplicas).toBe(9);
    expect(scaleAt([...five!.timeline.rows()], 1500)).toBe(5);
    expect(five!.summary.replicaMinutes).toBeGreaterThan(9 * 10 + 5 * 5);
    expect(five!.summary.replicaMinutes).toBeLessThan(9 * 10 + 5 * 5 + 2);
    const ratio = five!.summary.replicaMinutes / ten!.summary.replicaMinutes;
    expect(ratio).toBeGreaterThan(1.7);
    expect(ratio).toBeLessThan(2);
  });
});
