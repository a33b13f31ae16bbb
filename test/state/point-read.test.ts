// EntityTable's point reads are Drover's own GET through the TableClient's pipeline, parsed here
// (src/state/table-requests.ts): on Azurite, a row reads back as the SDK's listing reads it,
// whatever its keys hold; a missing row (or table) is undefined; a failure is a storage error.
import { beforeAll, describe, expect, it } from 'vitest';
import { AzureNamedKeyCredential, TableClient } from '@azure/data-tables';
import { EntityTable } from '../../src/state/entity-table.js';
import { StorageRequestError } from '../../src/state/errors.js';
import { tableClientOptions, type Storage } from '../../src/state/storage.js';
import { AZURITE_ACCOUNT, AZURITE_KEY } from '../../sim/azurite.js';
import { freshStorage } from '../support/storage.js';
import { withSilentServer } from '../support/silent-server.js';

let storage: Storage;
beforeAll(async () => {
  storage = await freshStorage();
});

describe('a point read', () => {
  it.each([
    { name: 'plain keys', partition: 'pool-a', row: 'vm-1' },
    { name: 'a quote, slashes, a hash, a percent sign and a question mark', partition: "rg/it's", row: "/subscriptions/s/vm#1?x=50%" },
    { name: 'non-ASCII keys', partition: 'zone-ü', row: 'vm-ñ-日本' },
  ])('reads a row as the listing does: $name', async ({ partition, row }) => {
    const t = new EntityTable(storage.table('machines'));
    const props = { s: "it's \"quoted\"", n: 3, big: 1_700_000_000_123, f: 0.25, neg: -7, yes: true, no: false, empty: '' };
    const written = await t.create(partition, row, props);
    const read = await t.get(partition, row);
    expect(read).toEqual({ partitionKey: partition, rowKey: row, etag: written!.etag, props });
    expect(read).toEqual((await t.list(partition)).find((r) => r.rowKey === row));
  });

  it('is undefined for a missing row and for a missing table', async () => {
    expect(await new EntityTable(storage.table('machines')).get('nowhere', 'nothing')).toBeUndefined();
    const missing = new TableClient(storage.table('machines').url, 'nosuchtable', new AzureNamedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY), { allowInsecureConnection: true });
    expect(await new EntityTable(missing).get('p', 'r')).toBeUndefined();
  });

  it('gives the service times: when the row was written and the answer\'s own clock', async () => {
    const t = new EntityTable(storage.table('machines'));
    await t.create('timed', 'r', { v: 1 });
    const timed = await t.getTimed('timed', 'r');
    expect(Math.abs(timed!.writtenAt - Date.now())).toBeLessThan(60_000);
    expect(Math.abs(timed!.serviceNow - Date.now())).toBeLessThan(60_000);
  });

  it('fails as a storage request error naming the read when the key is wrong, or the service never answers', async () => {
    const url = storage.table('machines').url;
    const wrongKey = new TableClient(url, storage.names.tables.machines, new AzureNamedKeyCredential(AZURITE_ACCOUNT, Buffer.from('not the key').toString('base64')), { allowInsecureConnection: true });
    const refused = await new EntityTable(wrongKey).get('p', 'r').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StorageRequestError);
    expect((refused as StorageRequestError).statusCode).toBe(403);
    expect((refused as Error).message).toContain('get');

    await withSilentServer(async ({ port, connections }) => {
      const client = new TableClient(`http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`, 'silent', new AzureNamedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY), { allowInsecureConnection: true, ...tableClientOptions(150) });
      const started = Date.now();
      expect(await new EntityTable(client).get('p', 'r').catch((e: unknown) => e)).toBeInstanceOf(StorageRequestError);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(connections()).toBeGreaterThanOrEqual(1);
    });
  });
});
