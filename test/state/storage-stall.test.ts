// Storage that stalls is said at the default log level while it lasts: a fake slow Table endpoint
// on loopback answers late (or not at all), the real Tables and Queue clients call it, and the
// threshold is shortened through the options (the default is 10 s).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createStorage } from '../../src/state/storage.js';
import { createAppRuntime } from '../../src/runtime/app-runtime.js';
import { writeConfig } from '../support/config.js';

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** Answers every request 404 after `delayMs()` (never, for Infinity); the message carries a signed URL. Creating a table or queue finds it there, at once. */
async function slowTables(delayMs: () => number) {
  server = http.createServer((req, res) => {
    req.resume();
    if (req.method === 'POST' && /\/Tables$/.test(req.url ?? '')) {
      res.writeHead(409, { 'content-type': 'application/json', 'x-ms-error-code': 'TableAlreadyExists' }).end('{"odata.error":{"code":"TableAlreadyExists","message":{"value":"exists"}}}');
      return;
    }
    if (req.method === 'PUT' && /^\/devstoreaccount1\/[^/?]+(\?timeout=\d+)?$/.test(req.url ?? '')) {
      res.writeHead(409, { 'content-type': 'application/xml', 'x-ms-error-code': 'QueueAlreadyExists' }).end('<?xml version="1.0" encoding="utf-8"?><Error><Code>QueueAlreadyExists</Code><Message>exists</Message></Error>');
      return;
    }
    const delay = delayMs();
    if (!Number.isFinite(delay)) return;
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
  it('a run of slow calls past the threshold leaves one redacted warning naming the table; a prompt answer ends the run, with a line', async () => {
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
    expect(lines[0]).toMatch(/^storage: calls to table stallleases stalled for \d+\.\d s: /);
    expect(lines[0]).not.toContain('SECRETSIG');

    delay = 0;
    await expect(leases.getEntity('p', 'r')).rejects.toThrow();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^storage: table stallleases answers again after a stall of \d+\.\d s$/);
    delay = 300;
    for (let i = 0; i < 2; i++) await expect(leases.getEntity('p', 'r')).rejects.toThrow();
    expect(lines).toHaveLength(2);
    for (let i = 0; i < 2; i++) await expect(leases.getEntity('p', 'r')).rejects.toThrow();
    expect(lines).toHaveLength(3);
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

describe('stalled Queue Storage', () => {
  it('a run of slow queue calls leaves one redacted warning naming the queue; what the calls answer is untouched', async () => {
    const connectionString = await slowTables(() => 300);
    const storage = createStorage({ kind: 'connection', connectionString }, 'stall', undefined, { stall: { thresholdMs: 1_500, slowCallMs: 250 } });
    const lines: string[] = [];
    storage.onStalled((line) => lines.push(line));
    const queue = storage.queue('reconcile');
    expect(queue.name).toBe('stall-reconcile');
    await expect(queue.sendMessage('x')).rejects.toThrow(/gone|404|ResourceNotFound/);
    expect(lines).toEqual([]);
    const started = Date.now();
    // Slow calls, one after another, until the run has lasted the threshold (about 5 calls), and two more.
    while (Date.now() - started < 1_500) await expect(queue.receiveMessages({ numberOfMessages: 1 })).rejects.toThrow();
    for (let i = 0; i < 2; i++) await expect(queue.getProperties()).rejects.toThrow();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^storage: calls to queue stall-reconcile stalled for \d+\.\d s: /);
    expect(lines[0]).not.toContain('SECRETSIG');
  }, 20_000);
});

describe("the Functions app's log", () => {
  it('gets the stall warning of a queue, redacted: the composition root wires it to the log it is given', async () => {
    const connectionString = await slowTables(() => 300);
    const lines: string[] = [];
    const log = { info: () => undefined, warn: (...a: unknown[]) => lines.push(a.map(String).join(' ')), error: () => undefined };
    const configFile = writeConfig({ storage: { connection: connectionString, prefix: 'app' }, pools: [] });
    const rt = await createAppRuntime({ configFile, env: {}, log, storage: { stall: { thresholdMs: 200, slowCallMs: 250 } } });
    await expect(rt.queues.probe({ target: 'web', attempt: 0, deadline: 0 })).rejects.toThrow();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^storage: calls to queue app-probe stalled for \d+\.\d s: /);
    expect(lines[0]).not.toContain('SECRETSIG');
  }, 20_000);

  it('gets a warning naming storage and the table while the call still hangs', async () => {
    let delay = Infinity;
    const connectionString = await slowTables(() => delay);
    const lines: string[] = [];
    const log = { info: () => undefined, warn: (...a: unknown[]) => lines.push(a.map(String).join(' ')), error: () => undefined };
    const configFile = writeConfig({ storage: { connection: connectionString, prefix: 'hang' }, pools: [] });
    const rt = await createAppRuntime({ configFile, env: {}, log, storage: { stall: { thresholdMs: 300, slowCallMs: 250 } } });
    let ended = false;
    const call = rt.table('leases').get('p', 'r').catch((err: unknown) => err).finally(() => (ended = true));
    const started = Date.now();
    while (lines.length === 0 && Date.now() - started < 10_000) await new Promise((resolve) => setTimeout(resolve, 20));
    // Said while the call still hangs (its tries time out at 5 s each, three of them): nothing had answered yet.
    expect(ended).toBe(false);
    expect(lines).toEqual([expect.stringMatching(/^storage: calls to table hangleases stalled for \d+\.\d s: 1 call waiting for an answer$/)]);
    // Storage answers again: the hanging try is cut, the next one is answered.
    delay = 0;
    server?.closeAllConnections();
    await call;
  }, 20_000);
});
