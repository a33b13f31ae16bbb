// Issue 13: bodies with a cap. A 256 MiB answer from a load source or the activator is neither
// read in full nor kept: no sample, and the reason says the answer was too large.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readHttpLoad } from '../../src/load/http-source.js';
import { probeActivator } from '../../src/probe/activator-probe.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { readSamples } from '../support/samples.js';
import { targetStatus } from '../../src/status/target-status.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { silentLog } from '../../src/log.js';
import { startTargetWorld, WEB, webTarget, type TargetWorld } from '../targets/support.js';

const HUGE = 256 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, '1');

interface HugeServer {
  url: string;
  /** Bytes the server managed to hand to the socket before the client went away. */
  sent(): number;
  close(): Promise<void>;
}

/** Answers 256 MiB of digits, announced in Content-Length or streamed without a length. */
async function hugeServer(announce: boolean): Promise<HugeServer> {
  let sent = 0;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, announce ? { 'content-length': String(HUGE) } : {});
    const pump = () => {
      while (sent < HUGE && !res.destroyed) {
        sent += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => res.destroy());
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/load`,
    sent: () => sent,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let server: HugeServer | undefined;
let world: TargetWorld | undefined;
afterEach(async () => {
  await server?.close();
  await world?.close();
  server = world = undefined;
});

describe('a 256 MiB answer', () => {
  it.each([
    { how: 'streamed without a length', announce: false },
    { how: 'announced in Content-Length', announce: true },
  ])('from a load source, $how: no sample, too large, and the rest never read', async ({ announce }) => {
    server = await hugeServer(announce);
    const before = process.memoryUsage().rss;
    const reading = await readHttpLoad({ url: server.url, timeout: 10_000 });
    expect(reading).toEqual({ ok: false, error: expect.stringMatching(/too large/) });
    // What crossed the socket is bounded by the socket buffers, not by what the server offered.
    await new Promise((r) => setTimeout(r, 100));
    expect(server.sent()).toBeLessThan(32 * 1024 * 1024);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('from the activator probe: not the activator, too large', async () => {
    server = await hugeServer(false);
    const result = await probeActivator(server.url, { timeoutMs: 10_000 });
    expect(result).toEqual({ ok: false, error: expect.stringMatching(/too large/) });
    expect(server.sent()).toBeLessThan(32 * 1024 * 1024);
  });

  it('reaches the target status as its lastError, with no sample taken', async () => {
    server = await hugeServer(false);
    const url = server.url;
    world = await startTargetWorld((activator) => [webTarget(activator, { load: { source: 'http', url, timeout: '10s', targetPerReplica: 10 } })]);
    world.kube.add(WEB, { replicas: 2 });
    await reconcileObject(world.rt, { kind: 'target', name: 'web' }, { reason: 'test' }, { log: silentLog });
    // The row keeps no desired scale for a load it could not read; the status shows it as -1.
    const record = await readTargetRecord(world.rt.table('targets'), 'web');
    expect(record).toMatchObject({ lastError: expect.stringMatching(/too large/) });
    expect(record?.desiredScale).toBeUndefined();
    expect(await targetStatus(world.rt, world.rt.config.targets[0]!)).toMatchObject({ desiredScale: -1, lastError: expect.stringMatching(/too large/) });
    expect((await readSamples(world.rt.table('samples'), 'web')).samples).toEqual([]);
  });
});
