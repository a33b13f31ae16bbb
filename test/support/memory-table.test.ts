import { describe, expect, it } from 'vitest';
import { memoryTable } from './memory-table.js';

describe('the in-memory table', () => {
  it('answers as the service does: a second create conflicts, a stale ETag is refused, a missing row is not there', async () => {
    const table = memoryTable();
    const row = (await table.create('p', 'a', { n: 1 }))!;
    expect(await table.create('p', 'a', { n: 2 })).toBeUndefined();
    const replaced = (await table.replaceIf(row, { n: 3 }))!;
    expect(replaced.etag).not.toBe(row.etag);
    expect(await table.replaceIf(row, { n: 4 })).toBeUndefined();
    expect((await table.get('p', 'a'))?.props).toEqual({ n: 3 });
    expect(await table.delete('p', 'a', row.etag)).toBe(false);
    expect(await table.delete('p', 'a', replaced.etag)).toBe(true);
    expect(await table.get('p', 'a')).toBeUndefined();
  });

  it('lists one partition or all, with keys that need escaping', async () => {
    const table = memoryTable();
    await table.create("o'brien", 'x/1', { n: 1 });
    await table.create('other', 'y', { n: 2 });
    expect((await table.list("o'brien")).map((r) => r.rowKey)).toEqual(['x/1']);
    expect(await table.list()).toHaveLength(2);
  });
});
