/** The executor: the packed inventory's writes, a fixed order, and only what happened recorded. */
import { describe, expect, it } from 'vitest';
import { EntityTable } from '../../src/state/entity-table.js';
import { tableRowWriter } from '../../src/pool/row-writer.js';
import { readInventory } from '../../src/pool/inventory.js';
import { planPool } from '../../src/pool/plan.js';
import { executePlan } from '../../src/pool/execute.js';
import { countBatches, freshStorage } from '../support/storage.js';
import { PoolModel, vmId } from './support/model.js';

const settings = { name: 'p', maxCount: 10, chunkSize: 4, instanceLimit: 100, fastDelete: true };

describe('the row writer', () => {
  it('writes any number of machines in one batch with the generation, migrating rows of the old format; a machine already there fails alone', async () => {
    const storage = await freshStorage();
    const table = new EntityTable(storage.table('machines'));
    await table.create('pool', 'row-150', { createdAt: 1, updatedAt: 1 });
    const transactions = countBatches(table);
    const writes = Array.from({ length: 250 }, (_, i) => ({ op: 'insert' as const, key: `row-${String(i).padStart(3, '0')}`, props: { createdAt: 2, updatedAt: 2 } }));
    const results = await tableRowWriter(table, 'pool').write(writes);
    // The pack, the generation and the delete of the old row-150 (its machine now in the pack).
    expect(transactions).toEqual([3]);
    expect(results.filter((r) => !r.ok)).toEqual([{ ok: false, reason: 'already in the inventory' }]);
    expect(results[150]).toMatchObject({ ok: false });
    const { rows } = await readInventory(table, 'pool');
    expect(rows).toHaveLength(250);
    expect(rows.find((r) => r.rowKey === 'row-150')?.props.createdAt).toBe(1);
    expect((await table.list('pool')).map((r) => r.rowKey).sort()).toEqual(['~generation', '~pack-000']);
  });

  it('guards each machine by the version it was read with: a pack moved on is read again, and only the machine written in between fails', async () => {
    const storage = await freshStorage();
    const table = new EntityTable(storage.table('machines'));
    await tableRowWriter(table, 'pool').write(['a', 'b'].map((key) => ({ op: 'insert', key, props: { createdAt: 1, updatedAt: 1 } })));
    const read = await readInventory(table, 'pool');
    const [a, b] = read.rows;
    expect(await tableRowWriter(table, 'pool', read).write([{ op: 'replace', key: 'a', etag: a!.etag, props: { createdAt: 1, updatedAt: 2 } }])).toEqual([{ ok: true }]);
    const transactions = countBatches(table);
    const late = await tableRowWriter(table, 'pool', read).write([
      { op: 'replace', key: 'a', etag: a!.etag, props: { createdAt: 1, updatedAt: 3 } },
      { op: 'delete', key: 'b', etag: b!.etag },
    ]);
    expect(late).toEqual([{ ok: false, reason: 'changed since it was read (412)' }, { ok: true }]);
    // Refused whole under the stale ETag of the pack, then sent again after one read.
    expect(transactions).toEqual([2, 2]);
    const after = await readInventory(table, 'pool');
    expect(after.rows.map((r) => [r.rowKey, r.props.updatedAt])).toEqual([['a', 2]]);
  });

  it('writes bookkeeping rows in the same batch; one the service refuses fails alone', async () => {
    const storage = await freshStorage();
    const table = new EntityTable(storage.table('machines'));
    await table.create('pool', '~backoff', { json: '{}' });
    const results = await tableRowWriter(table, 'pool').write([
      { op: 'insert', key: '~backoff', props: { json: '{"failures":1}' } },
      { op: 'insert', key: '~safety', props: { json: '{}' } },
      { op: 'insert', key: 'm', props: { createdAt: 1, updatedAt: 1 } },
    ]);
    expect(results).toEqual([{ ok: false, reason: 'already in the inventory' }, { ok: true }, { ok: true }]);
    const inventory = await readInventory(table, 'pool');
    expect(inventory.rows.map((r) => r.rowKey)).toEqual(['m']);
    expect(inventory.backoff).toEqual({});
    expect(inventory.safety).toEqual({});
  });
});

describe('executePlan', () => {
  it('checks the lease once per write phase and draws the creation tokens once', async () => {
    const model = new PoolModel();
    model.addRunning(3);
    const faults: string[] = [];
    model.fault = (kind) => void faults.push(kind);
    const draws: number[] = [];
    const { outcome } = await model.pass(settings, async (n) => (draws.push(n), n));
    expect(outcome.adopted).toHaveLength(3);
    expect(draws).toEqual([4]);
    expect(outcome.raise).toMatchObject({ kind: 'raised', from: 3, to: 7 });
    // Inventory phase, capacity phase, adoption of the new VMs: three lease checks for 7 rows.
    expect(faults.filter((f) => f === 'lease')).toHaveLength(3);
  });

  it('raises only by the tokens the creation rate gives, and says so', async () => {
    const model = new PoolModel();
    const { outcome } = await model.pass(settings, async () => 1);
    expect(outcome.raise).toMatchObject({ kind: 'raised', from: 0, to: 1, wanted: 4 });
    expect(model.capacityWrites).toEqual([1]);
  });

  it('records a 412 on the capacity write as a lost race and adopts nothing for it', async () => {
    const model = new PoolModel();
    model.fault = (kind) => {
      if (kind === 'setCapacity') model.etag++;
    };
    const { outcome } = await model.pass(settings);
    expect(outcome.raise).toEqual({ kind: 'lostRace', from: 0, to: 4 });
    expect(model.managedIds()).toEqual([]);
  });

  it('records only the adoptions that happened', async () => {
    const model = new PoolModel();
    model.addRunning(2);
    const p = planPool(model.snapshot(), { ...settings, maxCount: 2 }, model.now);
    // The row appeared after the snapshot: planned, but not written by this pass.
    model.rows.set(vmId(1), { props: { createdAt: 0, updatedAt: 0 }, etag: 99 });
    const outcome = await executePlan(p, model.deps());
    expect(p.adopt.map((a) => a.id)).toEqual([vmId(0), vmId(1)]);
    expect(outcome.adopted).toEqual([vmId(0)]);
    expect(outcome.rowFailures).toEqual([`${vmId(1)}: already in the inventory`]);
  });

  it('deletes a broken VM only once its row is marked failed and the backoff recorded', async () => {
    const model = new PoolModel();
    model.addRunning(1);
    model.vms[0]!.broken = true;
    model.fault = (kind) => {
      if (kind === 'row') throw new Error('storage down');
    };
    await expect(model.pass(settings)).rejects.toThrow('storage down');
    expect(model.vms[0]!.state).toBe('Running');
  });
});
