import { describe, expect, it } from 'vitest';
import { changeKey, keyTime, minuteKey, parseHistoryRow, type HistoryObservation } from '../../src/state/history.js';
import { HISTORY_TRUST_MS, historyWrites, type WriterMemory } from '../../src/state/history-writes.js';

const T0 = Date.UTC(2026, 10, 30, 10, 5, 0);
const web = (f: Record<string, number> = {}, extra: Partial<HistoryObservation> = {}): HistoryObservation => ({ kind: 'target', fields: { desired: 3, scale: 3, ready: 3, ...f }, ...extra });

/** Runs observations through the writer as one process would, returning each pass's rows. */
function passes(steps: { at: number; obs: HistoryObservation }[], memory: WriterMemory = {}) {
  return steps.map(({ at, obs }) => {
    const out = historyWrites(memory, obs, at);
    memory = out.memory;
    return out.rows;
  });
}

describe('history keys', () => {
  it('keys a change by its instant and a load row by its minute, both read back as times', () => {
    expect(changeKey(T0 + 23_456)).toBe('2026-11-30T10:05:23.456Z');
    expect(minuteKey(T0 + 59_999)).toBe('2026-11-30T10:05Z');
    expect([keyTime('2026-11-30T10:05:23.456Z'), keyTime('2026-11-30T10:05Z'), keyTime('latest')]).toEqual([T0 + 23_456, T0, undefined]);
  });
});

describe('what a pass writes', () => {
  it('writes each change with its own time, nothing for a pass in which nothing changed', () => {
    const rows = passes([
      { at: T0 + 1_000, obs: web({ desired: 1, scale: 1, ready: 1 }) },
      { at: T0 + 5_000, obs: web({ desired: 1, scale: 1, ready: 1 }) },
      { at: T0 + 9_000, obs: web({ ready: 1 }) },
      { at: T0 + 14_000, obs: web() },
      { at: T0 + 40_000, obs: web({ desired: 1, scale: 1, ready: 1 }) },
    ]);
    expect(rows.map((r) => r.map((w) => w.rowKey))).toEqual([
      ['2026-11-30T10:05:01.000Z'],
      [],
      ['2026-11-30T10:05:09.000Z'],
      ['2026-11-30T10:05:14.000Z'],
      ['2026-11-30T10:05:40.000Z'],
    ]);
    expect(rows[2]![0]!.props).toEqual({ desired: 3, scale: 3, ready: 1 });
  });

  it('writes the events of a pass even when the state is the same, and keeps them as JSON', () => {
    const [first, second] = passes([
      { at: T0, obs: web() },
      { at: T0 + 3_000, obs: web({}, { events: ['woke from zero in 2100 ms'] }) },
    ]);
    expect(first).toHaveLength(1);
    expect(second).toEqual([{ rowKey: changeKey(T0 + 3_000), props: { desired: 3, scale: 3, ready: 3, events: '["woke from zero in 2100 ms"]' } }]);
  });

  it('marks a rise of a marked count as an event, and nothing on the first row (the rise is unknown)', () => {
    const pool = (broken: number): HistoryObservation => ({ kind: 'pool', fields: { capacity: 3, healthy: 3 - broken, broken }, risesMarked: { broken: 'VM(s) broken' } });
    const rows = passes([
      { at: T0, obs: pool(1) },
      { at: T0 + 5_000, obs: pool(3) },
      { at: T0 + 9_000, obs: pool(0) },
    ]);
    expect(rows.map((r) => r[0]!.props.events)).toEqual([undefined, '["2 VM(s) broken"]', undefined]);
  });

  it('writes an unchanged state again once its memory is HISTORY_TRUST_MS old (another instance may have written since)', () => {
    const rows = passes([
      { at: T0, obs: web() },
      { at: T0 + HISTORY_TRUST_MS - 1, obs: web() },
      { at: T0 + HISTORY_TRUST_MS, obs: web() },
    ]);
    expect(rows.map((r) => r.length)).toEqual([1, 0, 1]);
  });

  it("keeps a minute's load samples at their times with its min, max and average, a gauge's held value counted", () => {
    const held = { at: T0 - 30_000, value: 0 };
    const rows = passes([
      { at: T0 + 8_000, obs: web({}, { samples: [held, { at: T0 + 8_000, value: 25 }], gauge: true }) },
      // The first sample has left the pass's window by now: the writer still has it.
      { at: T0 + 41_000, obs: web({}, { samples: [{ at: T0 + 41_000, value: 0 }], gauge: true }) },
      { at: T0 + 50_000, obs: web({}, { samples: [{ at: T0 + 41_000, value: 0 }], gauge: true }) },
    ]);
    const loads = rows.map((r) => r.filter((w) => w.rowKey === minuteKey(T0)));
    expect(loads.map((l) => l.length)).toEqual([1, 1, 0]);
    expect(loads[1]![0]!.props).toEqual({ load: 25 / 3, loadMin: 0, loadMax: 25, loadPoints: '[[8000,25],[41000,0]]' });
    const read = parseHistoryRow('target/web', minuteKey(T0), loads[1]![0]!.props);
    expect(read?.load?.points).toEqual([
      { at: T0 + 8_000, value: 25 },
      { at: T0 + 41_000, value: 0 },
    ]);
    expect(read?.fields).toBeUndefined();
  });

  it('reads a row of the earlier per-minute format as a state at its minute and its average as one sample', () => {
    expect(parseHistoryRow('pool/workers', '2026-11-30T10:05Z', { capacity: 2, running: 2, failed: 1, inventory: 2 })).toEqual({
      object: 'pool/workers',
      key: '2026-11-30T10:05Z',
      at: T0,
      events: [],
      fields: { capacity: 2, healthy: 2, broken: 1, inventory: 2 },
    });
    const target = parseHistoryRow('target/web', '2026-11-30T10:05Z', { load: 12.5, desired: 2, scale: 2, ready: 2 });
    expect(target?.fields).toEqual({ desired: 2, scale: 2, ready: 2 });
    expect(target?.load).toEqual({ avg: 12.5, min: 12.5, max: 12.5, points: [{ at: T0, value: 12.5 }] });
  });
});
