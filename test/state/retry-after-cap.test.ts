// The Tables SDK sleeps on a Retry-After by itself: a storage answer asking for a day must not
// hold a call for a day (a year overflows setTimeout, which Node then fires at once, with a
// warning). With the cap each try waits at most a second, and the call fails fast.
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

describe('Table Storage answering 429 with a huge Retry-After', () => {
  it.each([
    { name: 'a day in seconds', headers: () => ({ 'retry-after': '86400' }) },
    { name: 'an HTTP date a day ahead', headers: () => ({ 'retry-after': new Date(Date.now() + 86_400_000).toUTCString() }) },
    { name: 'a day in retry-after-ms', headers: () => ({ 'retry-after-ms': '86400000' }) },
  ])('$name: every try is answered, and the call ends within seconds', async ({ headers }) => {
    let tries = 0;
    server = http.createServer((req, res) => {
      tries++;
      req.resume();
      res.writeHead(429, { 'content-type': 'application/json', ...headers() }).end('{"odata.error":{"code":"TooManyRequests","message":{"value":"slow down"}}}');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const key = Buffer.from('not-a-secret').toString('base64');
    const storage = createStorage({ kind: 'connection', connectionString: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${key};TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:${port}/devstoreaccount1` }, 'cap');
    const started = Date.now();
    await expect(storage.table('leases').getEntity('p', 'r')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(tries).toBe(3);
  }, 20_000);
});
