import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TableClient, AzureNamedKeyCredential } from '@azure/data-tables';
import type { TokenCredential } from '@azure/core-auth';
import { submitBatch, type BatchOp } from '../../src/state/batch.js';
import { EntityTable } from '../../src/state/entity-table.js';
import {
  StorageConflictError,
  StorageNotFoundError,
  StoragePreconditionFailedError,
  StorageRequestError,
} from '../../src/state/errors.js';
import { tableClientOptions, type Storage } from '../../src/state/storage.js';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type AzuriteHandle } from '../../sim/azurite.js';
import { generateSimCertificate } from '../../sim/arm/certificate.js';
import { freshStorage } from '../support/storage.js';
import { withSilentServer } from '../support/silent-server.js';

let storage: Storage;
beforeAll(async () => {
  storage = await freshStorage();
});

const pad = (i: number) => `vm-${String(i).padStart(3, '0')}`;

describe('submitBatch on Azurite (shared key)', () => {
  it('sends inserts, If-Match replaces, upserts and conditional deletes in one batch, each result in order', async () => {
    const client = storage.table('machines');
    const t = new EntityTable(client);
    const kept = await t.create('p1', 'replace-me', { v: 1 });
    const doomed = await t.create('p1', 'delete-me', { v: 1 });
    const ops: BatchOp[] = [
      { kind: 'insert', rowKey: 'new/one', props: { v: 1, big: 1_700_000_000_000, s: "it's", off: undefined } },
      { kind: 'replace', rowKey: 'replace-me', etag: kept!.etag, props: { v: 2 } },
      { kind: 'upsert', rowKey: 'upserted', props: { v: 3, flag: true } },
      { kind: 'delete', rowKey: 'delete-me', etag: doomed!.etag },
    ];
    const results = await submitBatch(client, 'p1', ops);
    expect(results.map((r) => r.status)).toEqual([204, 204, 204, 204]);
    const rows = new Map((await t.list('p1')).map((r) => [r.rowKey, r]));
    expect([...rows.keys()].sort()).toEqual(['new/one', 'replace-me', 'upserted']);
    expect(rows.get('new/one')?.props).toEqual({ v: 1, big: 1_700_000_000_000, s: "it's" });
    expect(rows.get('replace-me')?.props).toEqual({ v: 2 });
    expect(rows.get('upserted')?.props).toEqual({ v: 3, flag: true });
    // The ETags returned are the rows' ETags, in the order of the operations.
    expect(results[0]?.etag).toBe(rows.get('new/one')?.etag);
    expect(results[1]?.etag).toBe(rows.get('replace-me')?.etag);
    expect(results[2]?.etag).toBe(rows.get('upserted')?.etag);
    expect(results[3]?.etag).toBeUndefined();
  });

  it('refuses an insert of an existing row with 409 naming it, and writes nothing of the batch', async () => {
    const client = storage.table('machines');
    const t = new EntityTable(client);
    await t.create('p2', 'vm-001', { v: 1 });
    const ops: BatchOp[] = [0, 1, 2].map((i) => ({ kind: 'insert', rowKey: pad(i), props: { v: 2 } }));
    const err = await submitBatch(client, 'p2', ops).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageConflictError);
    expect((err as StorageConflictError).failedOperation).toMatchObject({ index: 1, kind: 'insert', rowKey: 'vm-001', status: 409, code: 'EntityAlreadyExists' });
    expect((err as Error).message).toContain('operation 1 (insert vm-001)');
    expect((await t.list('p2')).map((r) => [r.rowKey, r.props.v])).toEqual([['vm-001', 1]]);
  });

  it('fails a batch of 100 whose If-Match at position 57 is stale with 412 naming that operation', async () => {
    const client = storage.table('machines');
    const t = new EntityTable(client);
    await submitBatch(client, 'p3', Array.from({ length: 100 }, (_, i): BatchOp => ({ kind: 'insert', rowKey: pad(i), props: { v: 0 } })));
    const rows = (await t.list<{ v: number }>('p3')).sort((a, b) => a.rowKey.localeCompare(b.rowKey));
    await t.replaceIf(rows[57]!, { v: 9 }); // someone else wrote vm-057 since it was read
    const ops = rows.map((r): BatchOp => ({ kind: 'replace', rowKey: r.rowKey, etag: r.etag, props: { v: 1 } }));
    const err = await submitBatch(client, 'p3', ops).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoragePreconditionFailedError);
    expect((err as StoragePreconditionFailedError).failedOperation).toMatchObject({ index: 57, kind: 'replace', rowKey: 'vm-057', status: 412 });
    const after = await t.list<{ v: number }>('p3');
    expect(after.filter((r) => r.props.v === 1)).toEqual([]);
  });

  it('refuses a conditional delete whose ETag moved on (412) or whose row is gone (404)', async () => {
    const client = storage.table('machines');
    const t = new EntityTable(client);
    const row = await t.create('p4', 'vm-1', { v: 1 });
    await t.replaceIf(row!, { v: 2 });
    const stale = await submitBatch(client, 'p4', [{ kind: 'delete', rowKey: 'vm-1', etag: row!.etag }]).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(StoragePreconditionFailedError);
    expect((stale as StoragePreconditionFailedError).failedOperation).toMatchObject({ index: 0, kind: 'delete', rowKey: 'vm-1' });
    expect((await t.get('p4', 'vm-1'))?.props).toEqual({ v: 2 });
    const gone = await submitBatch(client, 'p4', [{ kind: 'delete', rowKey: 'vm-2', etag: '*' }]).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(StorageNotFoundError);
  });

  it('is refused as a request failure when the account key is wrong', async () => {
    const url = storage.table('machines').url;
    const wrongKey = Buffer.from('not the key').toString('base64');
    const client = new TableClient(url, storage.names.tables.machines, new AzureNamedKeyCredential(AZURITE_ACCOUNT, wrongKey), { allowInsecureConnection: true });
    const err = await submitBatch(client, 'p5', [{ kind: 'insert', rowKey: 'a', props: { v: 1 } }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageRequestError);
    expect((err as StorageRequestError).statusCode).toBe(403);
    expect(await new EntityTable(storage.table('machines')).list('p5')).toEqual([]);
  });

  it('ends with a request failure when the service never answers (each try cut by the timeout)', async () => {
    await withSilentServer(async ({ port, connections }) => {
      const client = new TableClient(`http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`, 'silent', new AzureNamedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY), {
        allowInsecureConnection: true,
        ...tableClientOptions(150),
      });
      const started = Date.now();
      const err = await submitBatch(client, 'p', [{ kind: 'insert', rowKey: 'a', props: { v: 1 } }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StorageRequestError);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(connections()).toBeGreaterThanOrEqual(1);
    });
  });
});

describe('submitBatch on Azurite over HTTPS with bearer tokens (--oauth basic)', () => {
  let azurite: AzuriteHandle;
  let dir: string;
  let ca: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'drover-batch-tls-'));
    const cert = await generateSimCertificate();
    ca = cert.cert;
    writeFileSync(path.join(dir, 'cert.pem'), cert.cert);
    writeFileSync(path.join(dir, 'key.pem'), cert.key);
    azurite = await startAzurite({ tls: { certFile: path.join(dir, 'cert.pem'), keyFile: path.join(dir, 'key.pem') }, oauth: true });
  }, 60_000);
  afterAll(async () => {
    await azurite?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const tokenFor = (audience: string): TokenCredential => ({
    getToken: async () => {
      const now = Math.floor(Date.now() / 1000);
      const claims = { aud: audience, iss: 'https://sts.windows.net/00000000-0000-0000-0000-000000000000/', iat: now - 60, nbf: now - 60, exp: now + 3600, oid: 'drover-test' };
      const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      return { token: `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.c2ln`, expiresOnTimestamp: (now + 3600) * 1000 };
    },
  });
  const tokenClient = (audience: string) =>
    new TableClient(`https://127.0.0.1:${azurite.ports.table}/${AZURITE_ACCOUNT}`, 'tokens', tokenFor(audience), { tlsOptions: { ca } });

  it('writes a batch with a bearer token from the client\'s credential', async () => {
    const client = tokenClient('https://storage.azure.com');
    await client.createTable();
    const results = await submitBatch(client, 'p', [
      { kind: 'insert', rowKey: 'a', props: { v: 1 } },
      { kind: 'upsert', rowKey: 'b', props: { v: 2 } },
    ]);
    expect(results.map((r) => r.status)).toEqual([204, 204]);
    const t = new EntityTable(client);
    expect((await t.list('p')).map((r) => [r.rowKey, r.props.v])).toEqual([['a', 1], ['b', 2]]);
  });

  it("reads a row with a bearer token: the point read is Drover's own GET on the client's pipeline", async () => {
    const client = tokenClient('https://storage.azure.com');
    await client.createTable();
    const t = new EntityTable(client);
    await t.create('p', "it's/a#1", { v: 7 });
    expect((await t.get('p', "it's/a#1"))?.props).toEqual({ v: 7 });
    expect(await t.get('p', 'missing')).toBeUndefined();
    const refused = await new EntityTable(tokenClient('https://management.azure.com')).get('p', "it's/a#1").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StorageRequestError);
    expect((refused as StorageRequestError).statusCode).toBe(403);
  });

  it('is refused when the token is not for storage', async () => {
    const err = await submitBatch(tokenClient('https://management.azure.com'), 'p', [{ kind: 'insert', rowKey: 'c', props: { v: 1 } }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageRequestError);
    expect((err as StorageRequestError).statusCode).toBe(403);
  });
});
