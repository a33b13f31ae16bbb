import { beforeAll, describe, expect, it } from 'vitest';
import { EntityTable } from '../../src/state/entity-table.js';
import { countBatches, freshStorage, sameStorage } from '../support/storage.js';
import type { Storage } from '../../src/state/storage.js';

let storage: Storage;
beforeAll(async () => {
  storage = await freshStorage();
});

describe('EntityTable', () => {
  it('stores and reads back rows whose keys need escaping', async () => {
    const t = new EntityTable(storage.table('targets'));
    await t.create('a/b', 'c#d?', { value: 1, label: 'x' });
    const row = await t.get<{ value: number; label: string }>('a/b', 'c#d?');
    expect(row?.props).toEqual({ value: 1, label: 'x' });
    const listed = await t.list('a/b');
    expect(listed.map((r) => r.rowKey)).toEqual(['c#d?']);
  });

  it('loses no update when eight read-modify-writes of one row race', async () => {
    const clients = Array.from({ length: 8 }, () => new EntityTable(sameStorage(storage).table('targets')));
    await Promise.all(
      clients.map((t) =>
        t.update<{ count: number }>('counter', 'one', (row) => ({ count: (row?.props.count ?? 0) + 1 })),
      ),
    );
    const row = await new EntityTable(storage.table('targets')).get<{ count: number }>('counter', 'one');
    expect(row?.props.count).toBe(8);
  });

  it('refuses a replace carrying a stale ETag', async () => {
    const t = new EntityTable(storage.table('targets'));
    const first = await t.create('p', 'stale', { v: 1 });
    expect(first).toBeDefined();
    const second = await t.replaceIf(first!, { v: 2 });
    expect(second).toBeDefined();
    expect(await t.replaceIf(first!, { v: 3 })).toBeUndefined();
    expect((await t.get<{ v: number }>('p', 'stale'))?.props.v).toBe(2);
  });

  it('writes only changed rows, in transactions of at most 100, and deletes missing ones', async () => {
    const t = new EntityTable(storage.table('instances'));
    const desired = Array.from({ length: 250 }, (_, i) => ({ rowKey: `vm-${String(i).padStart(3, '0')}`, props: { state: 'Running' } }));
    const batches = countBatches(t);
    expect(await t.writeChanged('vmss', desired, [])).toEqual({ written: 250, deleted: 0 });
    expect(batches).toEqual([100, 100, 50]);

    const existing = await t.list<{ state: string }>('vmss');
    const next = desired.slice(1).map((d, i) => (i === 0 ? { ...d, props: { state: 'Deleting' } } : d));
    batches.length = 0;
    expect(await t.writeChanged('vmss', next, existing, { deleteMissing: true })).toEqual({ written: 1, deleted: 1 });
    expect(batches).toEqual([2]);
    const after = await t.list<{ state: string }>('vmss');
    expect(after).toHaveLength(249);
    expect(after.find((r) => r.rowKey === 'vm-001')?.props.state).toBe('Deleting');
  });

  it('deletes missing rows only if unchanged since read: a row rewritten in between stays', async () => {
    const t = new EntityTable(storage.table('instances'));
    await t.writeChanged('retire', ['a', 'b', 'c'].map((rowKey) => ({ rowKey, props: { v: 1 } })), []);
    const existing = await t.list<{ v: number }>('retire');
    const b = existing.find((r) => r.rowKey === 'b')!;
    await t.replaceIf(b, { v: 2 });
    expect(await t.writeChanged('retire', [], existing, { deleteMissing: true })).toEqual({ written: 0, deleted: 2 });
    expect((await t.list<{ v: number }>('retire')).map((r) => [r.rowKey, r.props.v])).toEqual([['b', 2]]);
  });
});
