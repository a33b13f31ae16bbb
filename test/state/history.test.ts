import { beforeAll, describe, expect, it } from 'vitest';
import { EntityTable } from '../../src/state/entity-table.js';
import { HistoryStore } from '../../src/state/history-store.js';
import {
  HISTORY_HEARTBEAT_MS,
  minuteKey,
  minuteLoad,
  minuteStart,
  nextHistoryRow,
  poolFields,
  type TargetHistoryFields,
} from '../../src/state/history.js';
import type { Storage } from '../../src/state/storage.js';
import { freshStorage } from '../support/storage.js';

const T0 = Date.UTC(2026, 10, 30, 10, 5, 0);
const web = (f: Partial<TargetHistoryFields> = {}): TargetHistoryFields => ({ desired: 3, scale: 3, ready: 3, ...f });

describe('history row shape', () => {
  it('keys a row by its UTC minute in ISO, and reads the key back as the minute start', () => {
    expect(minuteKey(T0 + 59_999)).toBe('2026-11-30T10:05Z');
    expect(minuteStart('2026-11-30T10:05Z')).toBe(T0);
    expect(minuteStart('2026-11-30T10:05:00Z')).toBeUndefined();
  });

  it.each([
    { name: 'the first observation of an object is written', last: undefined, fields: web(), at: T0, want: true },
    { name: 'an unchanged object is not written again within half an hour', last: { minute: minuteKey(T0), fields: web() }, fields: web(), at: T0 + 29 * 60_000, want: false },
    { name: 'an unchanged object gets a row once its last one is half an hour old', last: { minute: minuteKey(T0), fields: web() }, fields: web(), at: T0 + HISTORY_HEARTBEAT_MS, want: true },
    { name: 'a change is written at once', last: { minute: minuteKey(T0), fields: web() }, fields: web({ ready: 2 }), at: T0 + 61_000, want: true },
    { name: 'a change later in the same minute rewrites that minute', last: { minute: minuteKey(T0), fields: web() }, fields: web({ scale: 5 }), at: T0 + 30_000, want: true },
  ])('$name', ({ last, fields, at, want }) => {
    const next = nextHistoryRow(last, fields, at);
    expect(next !== undefined).toBe(want);
    if (next) expect(next.minute).toBe(minuteKey(at));
  });

  it("keeps a wake's latency when the same minute is rewritten without one", () => {
    const next = nextHistoryRow({ minute: minuteKey(T0), fields: web({ activationMs: 3017 }) }, web({ ready: 4 }), T0 + 10_000);
    expect(next?.fields).toEqual(web({ ready: 4, activationMs: 3017 }));
  });

  it("averages the minute's samples, and holds a gauge through a minute without one", () => {
    const samples = [
      { at: T0 - 10_000, value: 100 },
      { at: T0 + 1_000, value: 10 },
      { at: T0 + 20_000, value: 30 },
    ];
    expect(minuteLoad(samples, false, T0 + 30_000)).toBe(20);
    expect(minuteLoad(samples.slice(0, 1), false, T0 + 30_000)).toBeUndefined();
    expect(minuteLoad(samples.slice(0, 1), true, T0 + 30_000)).toBe(100);
  });

  it('counts VMs by cached state, failed ones apart, and leaves an unknown capacity out', () => {
    const oom = { errorClass: 'OutOfResources' as const, errorCode: 'x', errorMessage: 'y' };
    const fields = poolFields(
      [
        { state: 'Running', errorInfo: null },
        { state: 'Running', errorInfo: null },
        { state: 'Creating', errorInfo: oom },
        { state: 'Deleting', errorInfo: null },
        { state: null, errorInfo: null },
      ],
      4,
      undefined,
    );
    expect(fields).toEqual({ running: 2, creating: 1, deleting: 1, unknown: 1, failed: 1, inventory: 4 });
  });
});

describe('history store', () => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await freshStorage();
  });

  it('writes a row per minute only on change, keeps the exact key shape and reads the last hour back', async () => {
    const table = new EntityTable(storage.table('history'));
    const store = new HistoryStore(table);
    expect(await store.record('target/web', web({ load: 25 }), T0)).toBe(true);
    expect(await store.record('target/web', web({ load: 25 }), T0 + 5_000)).toBe(false);
    expect(await store.record('target/web', web({ load: 25, ready: 1 }), T0 + 65_000)).toBe(true);
    expect(await store.record('pool/workers', poolFields([{ state: 'Running', errorInfo: null }], 1, 1), T0)).toBe(true);

    const raw = await table.list('target/web');
    expect(raw.map((r) => r.rowKey)).toEqual(['2026-11-30T10:05Z', '2026-11-30T10:06Z']);
    expect(raw[1]!.props).toEqual({ load: 25, desired: 3, scale: 3, ready: 1 });

    const rows = await store.read('target/web', T0 + 2 * 60_000);
    expect(rows.map((r) => [r.minute, r.at, r.fields])).toEqual([
      ['2026-11-30T10:05Z', T0, web({ load: 25 })],
      ['2026-11-30T10:06Z', T0 + 60_000, web({ load: 25, ready: 1 })],
    ]);
    // A second process starts from the stored row, not from nothing.
    expect(await new HistoryStore(table).record('target/web', web({ load: 25, ready: 1 }), T0 + 70_000)).toBe(false);
    expect(await store.read('target/web', T0 + 2 * 3_600_000)).toEqual([]);
  });

  it("counts rows other instances wrote: an instance that saw X writes X again once another wrote Y", async () => {
    const table = new EntityTable(storage.table('history'));
    const [a, b] = [new HistoryStore(table), new HistoryStore(table)];
    expect(await a.record('target/shared', web(), T0)).toBe(true);
    expect(await b.record('target/shared', web({ ready: 1 }), T0 + 61_000)).toBe(true);
    expect(await a.record('target/shared', web(), T0 + 125_000)).toBe(true);
    expect((await a.read('target/shared', T0 + 180_000)).map((r) => (r.fields as TargetHistoryFields).ready)).toEqual([3, 1, 3]);
  });

  it('deletes rows older than 24 hours in batches and keeps the newer ones', async () => {
    const table = new EntityTable(storage.table('history'));
    const store = new HistoryStore(table);
    const old = Array.from({ length: 130 }, (_, i) => ({ rowKey: minuteKey(T0 + i * 60_000), props: { desired: i, scale: 1, ready: 1 } }));
    await table.writeChanged('target/old', old, []);
    const now = T0 + 24 * 3_600_000 + 100 * 60_000;
    expect(await store.prune('target/old', now)).toBe(100);
    const left = await table.list('target/old');
    expect(left).toHaveLength(30);
    expect(left[0]!.rowKey).toBe(minuteKey(T0 + 100 * 60_000));
  });
});
