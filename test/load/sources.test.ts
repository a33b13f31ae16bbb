// The http and queue load sources: what counts as a sample and what is "no sample".
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueueClient } from '@azure/storage-queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { parseLoad, readHttpLoad } from '../../src/load/http-source.js';
import { parseJsonPath, valueAtPath } from '../../src/load/json-path.js';
import { queueClientFor, readQueueLoad } from '../../src/load/queue-source.js';

describe('jsonPath', () => {
  it.each<{ name: string; path: string; want: (string | number)[] }>([
    { name: 'dotted names', path: 'metrics.inflight', want: ['metrics', 'inflight'] },
    { name: 'a leading $', path: '$.metrics.inflight', want: ['metrics', 'inflight'] },
    { name: 'array indexes', path: 'queues[1].depth', want: ['queues', 1, 'depth'] },
  ])('$name', ({ path, want }) => {
    expect(parseJsonPath(path)).toEqual(want);
  });

  it.each(['a..b', 'a[x]', '$', 'a['])('refuses %j', (path) => {
    expect(() => parseJsonPath(path)).toThrow(/jsonPath/);
  });

  it('names the step that is missing', () => {
    expect(() => valueAtPath({ metrics: {} }, 'metrics.inflight')).toThrow(/no "inflight"/);
  });
});

describe('parseLoad', () => {
  it.each<{ name: string; body: string; path?: string; want: number | RegExp }>([
    { name: 'a bare number', body: '42\n', want: 42 },
    { name: 'a decimal', body: '2.5', want: 2.5 },
    { name: 'JSON at a path', body: '{"metrics":{"inflight":7}}', path: 'metrics.inflight', want: 7 },
    { name: 'a numeric string at a path', body: '{"q":[{"depth":"12"}]}', path: 'q[0].depth', want: 12 },
    { name: 'text that is no number', body: 'busy', want: /not a load/ },
    { name: 'an empty body', body: '', want: /not a load/ },
    { name: 'a negative number', body: '-3', want: /not a load/ },
    { name: 'JSON without the path', body: '{"metrics":{}}', path: 'metrics.inflight', want: /no "inflight"/ },
    { name: 'not JSON when a path is set', body: '7', path: 'x', want: /not JSON|no "x"/ },
    { name: 'a JSON object where a number is wanted', body: '{"a":{"b":1}}', path: 'a', want: /not a load/ },
  ])('$name', ({ body, path, want }) => {
    const got = parseLoad(body, path, 'src');
    if (typeof want === 'number') expect(got).toEqual({ ok: true, value: want });
    else expect(got).toMatchObject({ ok: false, error: expect.stringMatching(want) });
  });
});

describe('readHttpLoad', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/number') res.writeHead(200).end('9');
      else if (req.url === '/json') res.writeHead(200, { 'content-type': 'application/json' }).end('{"inflight":4}');
      else if (req.url === '/fail') res.writeHead(503).end('5');
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('1'), 2_000);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each<{ name: string; path: string; jsonPath?: string; want: number | RegExp }>([
    { name: 'a number', path: '/number', want: 9 },
    { name: 'JSON with a path', path: '/json', jsonPath: 'inflight', want: 4 },
    { name: 'a non-2xx answer is no sample, whatever its body', path: '/fail', want: /answered 503/ },
    { name: 'no answer within the timeout is no sample', path: '/slow', want: /no answer within 200 ms/ },
  ])('$name', async ({ path, jsonPath, want }) => {
    const got = await readHttpLoad({ url: `${base}${path}`, timeout: 200, ...(jsonPath ? { jsonPath } : {}) });
    if (typeof want === 'number') expect(got).toEqual({ ok: true, value: want });
    else expect(got).toMatchObject({ ok: false, error: expect.stringMatching(want) });
  });

  it('an unreachable source is no sample', async () => {
    const got = await readHttpLoad({ url: 'http://127.0.0.1:1/load', timeout: 500 });
    expect(got).toMatchObject({ ok: false, error: expect.stringMatching(/127\.0\.0\.1:1/) });
  });
});

describe('readQueueLoad', () => {
  it('reads the approximate message count of a storage queue by connection string', async () => {
    const connection = inject('azuriteConnection');
    const queueName = `load${Date.now().toString(36)}`;
    const queue = new QueueClient(connection, queueName);
    await queue.create();
    await Promise.all([queue.sendMessage('a'), queue.sendMessage('b'), queue.sendMessage('c')]);
    const client = queueClientFor({ queueName, connection }, () => {
      throw new Error('no identity needed with a connection string');
    });
    expect(await readQueueLoad(client)).toEqual({ ok: true, value: 3 });
    await queue.delete();
  });

  it('a queue that does not exist is no sample', async () => {
    const client = queueClientFor({ queueName: 'no-such-queue', connection: inject('azuriteConnection') }, () => {
      throw new Error('unused');
    });
    expect(await readQueueLoad(client)).toMatchObject({ ok: false, error: expect.stringMatching(/no-such-queue/) });
  });
});
