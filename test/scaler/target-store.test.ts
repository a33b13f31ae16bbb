// The targets row: a reconcile writes only over the revision it read and bumps it; the async
// probe's merge leaves the revision alone, so it never makes a reconcile's write fail.
import { describe, expect, it } from 'vitest';
import { mergeTargetRecord, readTargetRecord, TargetRecordChangedError, writeTargetRecord } from '../../src/scaler/read/target-store.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { freshStorage } from '../support/storage.js';

describe('target store', () => {
  it('bumps the revision on a change, not on a write that changes nothing', async () => {
    const table = new EntityTable((await freshStorage()).table('targets'));
    expect(await writeTargetRecord(table, 'web', 0, () => ({ actualScale: 3 }))).toBe(1);
    expect(await writeTargetRecord(table, 'web', 1, () => ({ actualScale: 3 }))).toBe(1);
    expect(await writeTargetRecord(table, 'web', 1, () => ({ actualScale: 4, lastError: undefined }))).toBe(2);
    expect(await readTargetRecord(table, 'web')).toEqual({ actualScale: 4, revision: 2 });
  });

  it('refuses a write over a revision another reconcile wrote, and leaves the row as it was', async () => {
    const table = new EntityTable((await freshStorage()).table('targets'));
    await writeTargetRecord(table, 'web', 0, () => ({ requestedScale: 5 }));
    await writeTargetRecord(table, 'web', 1, () => ({ requestedScale: 10 }));
    await expect(writeTargetRecord(table, 'web', 1, () => ({ requestedScale: 4 }))).rejects.toBeInstanceOf(TargetRecordChangedError);
    expect(await readTargetRecord(table, 'web')).toEqual({ requestedScale: 10, revision: 2 });
  });

  it('a probe merge in between does not fence out the reconcile', async () => {
    const table = new EntityTable((await freshStorage()).table('targets'));
    const revision = await writeTargetRecord(table, 'web', 0, () => ({ activeStatus: 'False' }));
    await mergeTargetRecord(table, 'web', () => ({ activatorSeenSince: 1_000 }));
    expect(await writeTargetRecord(table, 'web', revision, () => ({ actualScale: 0 }))).toBe(2);
    expect(await readTargetRecord(table, 'web')).toEqual({ activeStatus: 'False', activatorSeenSince: 1_000, actualScale: 0, revision: 2 });
  });
});
