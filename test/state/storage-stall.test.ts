// Storage that stalls leaves one warning at the default log level: a fake slow Table endpoint on
// loopback answers late, the real Tables client calls it, and the threshold is shortened through
// the options (the default is 25 s).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createStorage } from '../../src/state/storage.js';

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** Answers every request 404 after `delayMs()`; the message carries a signed URL. */
async function slowTables(delayMs: () => number) {
  server = http.createServer((req, res) => {
    req.resume();
    setTimeout(() => {
      res
        .writeHead(404, { 'content-type': 'application/json', 'x-ms-error-code': 'ResourceNotFound' })
        .end('{"odata.error":{"code":"ResourceNotFound","message":{"value":"gone, see https://acct.table.core.windows.net/t?sig=SECRETSIG"}}}');
    }, delayMs());
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const key = Buffer.from('not-a-secret').toString('base64');
  return `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${key};TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:${port}/devstoreaccount1`;
}

describe('stalled Table Storage', () => {
  it('a run of slow calls past the threshold leaves one redacted warning naming the table; a prompt answer ends the run', async () => {
    let delay = 300;
    const connectionString = await slowTables(() => delay);
    const storage = createStorage({ kind: 'connection', connectionString }, 'stall', undefined, { stall: { thresholdMs: 700, slowCallMs: 250 } });
    const lines: string[] = [];
    storage.onStalled((line) => lines.push(line));
    const leases = storage.table('leases');

    await expect(leases.getEntity('p', 'r')).rejects.toThrow();
    expect(lines).toEqual([]);
    for (let i = 0; i < 4; i++) await expect(leases.getEntity('p', 'r')).rejects.toThrow();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^storage: calls to table stallleases stalled for \d+\.\d s over [3-5] calls; the last one failed: /);
    expect(lines[0]).not.toContain('SECRETSIG');

    delay = 0;
    await expect(leases.getEntity('p', 'r')).rejects.toThrow();
    delay = 300;
    for (let i = 0; i < 2; i++) await expect(leases.getEntity('p', 'r')).rejects.toThrow();
    expect(lines).toHaveLength(1);
    for (let i = 0; i < 2; i++) await expect(leases.getEntity('p', 'r')).rejects.toThrow();
    expect(lines).toHaveLength(2);
  }, 20_000);

  it('prompt answers never warn, however many', async () => {
    const connectionString = await slowTables(() => 0);
    const storage = createStorage({ kind: 'connection', connectionString }, 'stall', undefined, { stall: { thresholdMs: 1, slowCallMs: 2_000 } });
    const lines: string[] = [];
    storage.onStalled((line) => lines.push(line));
    for (let i = 0; i < 5; i++) await expect(storage.table('machines').getEntity('p', 'r')).rejects.toThrow();
    expect(lines).toEqual([]);
  });
});
