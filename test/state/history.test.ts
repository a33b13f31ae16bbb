import type { TableClient } from '@azure/data-tables';
import { beforeAll, describe, expect, it } from 'vitest';
import { EntityTable } from '../../src/state/entity-table.js';
import { HistoryStore } from '../../src/state/history-store.js';
import { HISTORY_MAX_ROWS, changeKey, minuteKey, type HistoryObservation } from '../../src/state/history.js';
import type { Storage } from '../../src/state/storage.js';
import { freshStorage } from '../support/storage.js';

const T0 = Date.UTC(2026, 10, 30, 10, 5, 0);
const web = (f: Record<string, number> = {}, extra: Partial<HistoryObservation> = {}): HistoryObservation => ({ kind: 'target', fields: { desired: 3, scale: 3, ready: 3, ...f }, ...extra });

/** Every HTTP request the client sends, counted by kind (a policy on the SDK's own pipeline: Drover's code runs as it is). */
function counted(client: TableClient): { calls: Map<string, number>; stop(): void } {
  const calls = new Map<string, number>();
  const name = 'count-requests';
  client.pipeline.addPolicy({
    name,
    sendRequest: (request, next) => {
      const kind = request.url.includes('$batch') ? 'batch' : request.method === 'GET' ? 'read' : `${request.method} write`;
      calls.set(kind, (calls.get(kind) ?? 0) + 1);
      return next(request);
    },
  });
  return { calls, stop: () => client.pipeline.removePolicy({ name }) };
}

describe('history store', () => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await freshStorage();
  });

  it('writes what a pass saw in one transaction, reads nothing to decide it, and a pass that changed nothing costs no request', async () => {
    const client = storage.table('history');
    const { calls, stop } = counted(client);
    try {
      const store = new HistoryStore(new EntityTable(client));
      const samples = [{ at: T0 + 8_000, value: 25 }];
      expect(await store.record('target/batch', web({}, { samples, gauge: true, events: ['active'] }), T0 + 8_000)).toBe(2);
      // One batch (the first prune comes minutes after the first write).
      expect(Object.fromEntries(calls)).toEqual({ batch: 1 });
      calls.clear();
      expect(await store.record('target/batch', web({}, { samples, gauge: true }), T0 + 12_000)).toBe(0);
      expect(calls.size).toBe(0);
      expect(await store.record('target/batch', web({ ready: 1 }, { samples, gauge: true }), T0 + 15_000)).toBe(1);
      expect(Object.fromEntries(calls)).toEqual({ batch: 1 });
    } finally {
      stop();
    }
  });

  it('reads the window at the resolution of change, led by the state it starts from', async () => {
    const table = new EntityTable(storage.table('history'));
    const store = new HistoryStore(table);
    const before = T0 - 2 * 3_600_000;
    await store.record('target/web', web({ desired: 1, scale: 1, ready: 1 }), before);
    await store.record('target/web', web({ desired: 3, scale: 3, ready: 1 }, { samples: [{ at: T0 + 8_000, value: 25 }], gauge: true }), T0 + 8_000);
    await store.record('target/web', web({}, { samples: [{ at: T0 + 8_000, value: 25 }], gauge: true }), T0 + 11_000);
    await store.record('target/web', web({ desired: 1, scale: 1, ready: 1 }, { samples: [{ at: T0 + 41_000, value: 0 }], gauge: true }), T0 + 41_000);

    const keys = (await table.list('target/web')).map((r) => r.rowKey);
    expect(keys).toEqual([changeKey(before), changeKey(T0 + 8_000), changeKey(T0 + 11_000), changeKey(T0 + 41_000), minuteKey(T0)]);

    const rows = await store.read('target/web', T0 + 30 * 60_000);
    expect(rows.map((r) => [r.at - T0, r.fields?.ready, r.load?.points.map((p) => [p.at - T0, p.value])])).toEqual([
      [before - T0, 1, undefined],
      [0, undefined, [[8_000, 25], [41_000, 0]]],
      [8_000, 1, undefined],
      [11_000, 3, undefined],
      [41_000, 1, undefined],
    ]);
    // Rows of the earlier per-minute format are still read.
    await table.upsert('target/web', minuteKey(T0 + 60_000), { load: 5, desired: 1, scale: 1, ready: 1 });
    const legacy = (await store.read('target/web', T0 + 30 * 60_000)).at(-1);
    expect(legacy).toMatchObject({ at: T0 + 60_000, fields: { desired: 1, scale: 1, ready: 1 }, load: { avg: 5 } });
  });

  it('deletes rows older than 24 hours and the oldest beyond the cap, in batches', async () => {
    const table = new EntityTable(storage.table('history'));
    const store = new HistoryStore(table);
    const old = Array.from({ length: 130 }, (_, i) => ({ rowKey: changeKey(T0 + i * 60_000), props: { desired: i, scale: 1, ready: 1 } }));
    await table.writeChanged('target/old', old, []);
    const now = T0 + 24 * 3_600_000 + 100 * 60_000;
    expect(await store.prune('target/old', now)).toBe(100);
    const left = await table.list('target/old');
    expect(left).toHaveLength(30);
    expect(left[0]!.rowKey).toBe(changeKey(T0 + 100 * 60_000));

    // The cap (HISTORY_MAX_ROWS) at a size a test writes quickly.
    expect(HISTORY_MAX_ROWS).toBeGreaterThanOrEqual(2 * 1_440);
    const many = Array.from({ length: 45 }, (_, i) => ({ rowKey: changeKey(T0 + i * 1_000), props: { desired: 1, scale: 1, ready: 1 } }));
    await table.writeChanged('target/busy', many, []);
    expect(await store.prune('target/busy', T0 + 3_600_000 * 2, 40)).toBe(5);
    expect((await table.list('target/busy'))[0]!.rowKey).toBe(changeKey(T0 + 5_000));
  });

  it('prunes an object first 5 to 60 minutes after its first write in a process, then at most once an hour', async () => {
    const table = new EntityTable(storage.table('history'));
    const seed = () => table.writeChanged('target/sched', [{ rowKey: changeKey(T0 - 25 * 3_600_000), props: { desired: 1, scale: 1, ready: 1 } }], []);
    const stale = async () => (await table.list('target/sched')).some((r) => r.rowKey === changeKey(T0 - 25 * 3_600_000));
    const store = new HistoryStore(table, () => 0);
    const observed = (ready: number) => ({ kind: 'target' as const, fields: { desired: 1, scale: 1, ready } });
    await seed();
    await store.record('target/sched', observed(1), T0);
    expect(await stale()).toBe(true);
    await store.record('target/sched', observed(2), T0 + 4 * 60_000);
    expect(await stale()).toBe(true);
    await store.record('target/sched', observed(3), T0 + 5 * 60_000);
    expect(await stale()).toBe(false);
    await seed();
    await store.record('target/sched', observed(4), T0 + 60 * 60_000);
    expect(await stale()).toBe(true);
    await store.record('target/sched', observed(5), T0 + 65 * 60_000);
    expect(await stale()).toBe(false);
    // The latest draw puts the first prune an hour after the first write.
    const late = new HistoryStore(table, () => 0.9999);
    await seed();
    await late.record('target/sched', observed(6), T0 + 70 * 60_000);
    await late.record('target/sched', observed(7), T0 + 129 * 60_000);
    expect(await stale()).toBe(true);
  });
});
