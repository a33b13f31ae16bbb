// `drover replay` of a target that sizes a pool (`scaleTargetRef: { kind: Pool }`), through the
// real replay entry: the target's plan writes the wanted count, the pool's own plan and executor
// carry it out on the virtual clock, and the VMs run one creation delay after the raise.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { replayTrace } from '../../src/replay/replay.js';
import type { PoolTimelineRow } from '../../src/replay/pool-replay.js';
import { parseReplaySchedule } from '../../src/replay/schedule.js';
import type { TraceRow } from '../../src/replay/trace.js';

const MIN = 60_000;

function sizedConfig(pool: Record<string, unknown> = {}) {
  return parseConfig({
    pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' }, maxCount: 10, chunkSize: 2, creationRate: '0s,1', ...pool }],
    targets: [{ name: 'jobs', scaleTargetRef: { kind: 'Pool', name: 'workers' }, policy: 'knative', minScale: 1, maxScale: 10, load: { source: 'push', targetPerReplica: 10 } }],
    // As `drover replay` loads it: it reaches no scale set, so it needs no azure section.
  }, '(inline)', { offline: true });
}

/** Pushed load, one row a minute: 20 (2 VMs) until minute 5, then 80 (8 VMs), from minute 20 on 30 (3 VMs); 35 minutes. */
function trace(): TraceRow[] {
  const rows: TraceRow[] = [];
  for (let m = 0; m <= 35; m++) rows.push({ at: m * MIN, target: undefined, load: m < 5 ? 20 : m < 20 ? 80 : 30, line: m + 2 });
  return rows;
}

const options = (creationDelayMs: number, more: { initialScale?: number; startDelayMs?: number } = {}) => ({ readyDelayMs: 0, initialScale: 2, creationDelayMs, schedule: parseReplaySchedule('0 */1 * * * *'), ...more });

/** The row in force at `ms`. */
function at(rows: readonly PoolTimelineRow[], ms: number): PoolTimelineRow {
  return rows.filter((r) => r.at <= ms).at(-1)!;
}

describe('replay of a Pool target', () => {
  it('2 → 8 → 3: capacity raised in chunks of chunkSize a pass, the VMs ready one creation delay later, then 5 VMs deleted by the scale-in', async () => {
    const [jobs] = await replayTrace(sizedConfig(), trace(), options(3 * MIN));
    const pool = jobs!.pool!;
    expect(pool.name).toBe('workers');
    const rows = pool.timeline;
    // The wanted count follows the load at once. The pool's timer pass at minute 5 came before the
    // write and took the period's reconcile token (1m,1); the pass the write enqueued is a raise's
    // and takes its token from the raise bucket, so the first chunk is raised at minute 5, not at
    // the next timer. Then 2 at a time, a pass a minute.
    expect(at(rows, 5 * MIN)).toEqual({ at: 5 * MIN, wanted: 8, capacity: 4, creating: 2, ready: 2, parked: 0 });
    expect(at(rows, 6 * MIN)).toMatchObject({ capacity: 6, creating: 4, ready: 2 });
    expect(at(rows, 7 * MIN)).toMatchObject({ capacity: 8, creating: 6, ready: 2 });
    // Each chunk runs 3 minutes after its raise.
    expect(at(rows, 8 * MIN)).toMatchObject({ capacity: 8, ready: 4 });
    expect(at(rows, 9 * MIN)).toMatchObject({ ready: 6 });
    expect(at(rows, 10 * MIN - 1)).toMatchObject({ ready: 6 });
    expect(at(rows, 10 * MIN)).toMatchObject({ ready: 8, creating: 0 });
    // Capacity is only ever raised by a write; it goes down by the scale-in's deletions alone.
    const capacities = rows.map((r) => r.capacity);
    expect(Math.max(...capacities)).toBe(8);
    expect(rows.at(-1)).toMatchObject({ wanted: 3, capacity: 3, ready: 3 });
    const s = pool.summary;
    expect(s.capacityWrites).toBe(3);
    expect(s.vmsCreated).toBe(6);
    expect(s.vmsScaledIn).toBe(5);
    // ⌈5 / chunkSize⌉ deleteInstances calls.
    expect(s.deleteCalls).toBe(3);
    expect(s.peakVms).toBe(8);
    // Each count-changing call with its instant: the raises at 5, 6 and 7 minutes, then the deletions.
    expect(pool.calls.slice(0, 3)).toEqual([5 * MIN, 6 * MIN, 7 * MIN]);
    expect(pool.calls).toHaveLength(s.capacityWrites + s.deleteCalls);
    expect(jobs!.writes).toHaveLength(jobs!.summary.scaleWrites);
    // The target's own timeline shows the wanted count as its scale, and the running VMs as ready.
    const target = [...jobs!.timeline.rows()];
    expect(target.find((r) => r.ready === 8)!.at).toBe(10 * MIN);
    expect(target.at(-1)).toMatchObject({ scale: 3, ready: 3 });
  });

  it('a longer creation delay only moves the VMs becoming ready, and costs the same VMs', async () => {
    const [fast] = await replayTrace(sizedConfig(), trace(), options(1 * MIN));
    const [slow] = await replayTrace(sizedConfig(), trace(), options(4 * MIN));
    const firstFull = (rows: readonly PoolTimelineRow[]) => rows.find((r) => r.ready === 8)!.at;
    expect(firstFull(fast!.pool!.timeline)).toBe(8 * MIN);
    expect(firstFull(slow!.pool!.timeline)).toBe(11 * MIN);
    expect(slow!.summary.underProvisionedSeconds).toBeGreaterThan(fast!.summary.underProvisionedSeconds);
    expect(slow!.pool!.summary.vmsCreated).toBe(fast!.pool!.summary.vmsCreated);
  });

  it('the pool’s creation rate holds new VMs back: one token every 2 min draws one VM a pass', async () => {
    const [jobs] = await replayTrace(sizedConfig({ creationRate: '2m,1', chunkSize: 10 }), trace(), options(1 * MIN));
    const rows = jobs!.pool!.timeline;
    expect(at(rows, 5 * MIN)).toMatchObject({ wanted: 8, capacity: 3 });
    expect(at(rows, 6 * MIN)).toMatchObject({ capacity: 3 });
    // 6 VMs at one per 2 min: the last raise 10 min after the first.
    expect(rows.find((r) => r.capacity === 8)!.at).toBe(15 * MIN);
  });

  it('warm.max 2, wanted 6 → 2 → 5: 2 parked and 2 deleted; then the 2 parked started (ready one start delay later) and 1 created', async () => {
    const rows: TraceRow[] = [];
    for (let m = 0; m <= 30; m++) rows.push({ at: m * MIN, target: undefined, load: m < 5 ? 60 : m < 15 ? 20 : 50, line: m + 2 });
    const [jobs] = await replayTrace(sizedConfig({ warm: { max: 2 } }), rows, options(3 * MIN, { initialScale: 6, startDelayMs: 40_000 }));
    const pool = jobs!.pool!;
    const s = pool.summary;
    expect({ parked: s.vmsParked, scaledIn: s.vmsScaledIn, started: s.vmsStarted, created: s.vmsCreated }).toEqual({ parked: 2, scaledIn: 2, started: 2, created: 1 });
    // Down: 2 running and 2 parked, the capacity keeping the parked ones.
    expect(at(pool.timeline, 14 * MIN)).toMatchObject({ wanted: 2, capacity: 4, ready: 2, parked: 2 });
    // Up: the pass that starts the parked VMs also raises for the one left; started VMs run first.
    const woken = pool.timeline.find((r) => r.at >= 15 * MIN && r.parked === 0)!;
    expect(woken).toMatchObject({ wanted: 5, capacity: 5, ready: 2, creating: 3 });
    expect(at(pool.timeline, woken.at + 40_000)).toMatchObject({ ready: 4, creating: 1 });
    expect(at(pool.timeline, woken.at + 40_000 - 1)).toMatchObject({ ready: 2 });
    expect(at(pool.timeline, woken.at + 3 * MIN)).toMatchObject({ ready: 5, creating: 0, parked: 0 });
    // Parked VMs are not paid for as running ones: fewer VM-minutes than the capacity's.
    expect(s.parkedMinutes).toBeGreaterThan(0);
  });

  it('maxCount caps the wanted count the target writes', async () => {
    const [jobs] = await replayTrace(sizedConfig({ maxCount: 5 }), trace(), options(1 * MIN));
    const pool = jobs!.pool!;
    expect(Math.max(...pool.timeline.map((r) => r.wanted ?? 0))).toBe(5);
    expect(pool.summary.peakVms).toBe(5);
  });

  it('a Kubernetes target has no pool part', async () => {
    const config = parseConfig({ kubernetes: {}, targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, policy: 'knative', minScale: 1, load: { source: 'push', targetPerReplica: 10 } }] });
    const [web] = await replayTrace(config, trace(), options(MIN));
    expect(web!.pool).toBeUndefined();
  });
});
