// The samples row is written only over what was read: insert-if-absent, else If-Match.
import { describe, expect, it } from 'vitest';
import { SamplesChangedError } from '../../src/load/sample-store.js';
import { readSamples, writeSamples } from '../support/samples.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { freshStorage } from '../support/storage.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);


describe('sample store', () => {
  it('inserts a row that does not exist and replaces one it read', async () => {
    const table = new EntityTable((await freshStorage()).table('samples'));
    const empty = await readSamples(table, 'web');
    expect(empty).toEqual({ samples: [], etag: undefined });
    await writeSamples(table, 'web', [{ at: NOW, value: 3 }], NOW, empty.etag);
    const read = await readSamples(table, 'web');
    expect(read.samples).toEqual([{ at: NOW, value: 3 }]);
    await writeSamples(table, 'web', [{ at: NOW + 1, value: 4 }], NOW + 1, read.etag);
    expect((await readSamples(table, 'web')).samples).toEqual([{ at: NOW + 1, value: 4 }]);
  });

  it('refuses to overwrite samples another reconcile wrote since the read, or to insert over a new row', async () => {
    const table = new EntityTable((await freshStorage()).table('samples'));
    const before = await readSamples(table, 'web');
    await writeSamples(table, 'web', [{ at: NOW, value: 1 }], NOW, before.etag);
    await expect(writeSamples(table, 'web', [{ at: NOW, value: 2 }], NOW, before.etag)).rejects.toBeInstanceOf(SamplesChangedError);
    const read = await readSamples(table, 'web');
    await writeSamples(table, 'web', [{ at: NOW + 5, value: 5 }], NOW + 5, read.etag);
    await expect(writeSamples(table, 'web', [{ at: NOW, value: 9 }], NOW, read.etag)).rejects.toBeInstanceOf(SamplesChangedError);
    expect((await readSamples(table, 'web')).samples).toEqual([{ at: NOW + 5, value: 5 }]);
  });
});
