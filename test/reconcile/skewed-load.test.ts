// Issue 30: a host whose clock runs an hour ahead drove the timer for a few seconds; a correct host
// on the same storage must still follow a target's load within one timer period plus its
// `load.pollInterval`. Azurite (its own clock: the storage service's), the Kubernetes simulator, a
// load endpoint on loopback, and two local hosts, one with its clock skewed in-process.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { startLocalHost } from '../../src/host/local-host.js';
import { silentLog } from '../../src/log.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { skewedClock } from '../support/skew.js';
import { closeWorldAndServer, eventually, startTargetWorld, WEB, type TargetWorld } from '../targets/support.js';

const SCHEDULE = '*/2 * * * * *';
const PERIOD_MS = 2_000;
const POLL_MS = 2_000;
const HOUR = 3_600_000;

let world: TargetWorld | undefined;
let server: http.Server | undefined;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await closeWorldAndServer(world, server);
  world = undefined;
  server = undefined;
});

/** A load endpoint answering `load.value`. */
async function loadEndpoint(load: { value: number }): Promise<string> {
  server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(String(load.value));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/load`;
}

describe('a host an hour ahead, then a correct one', () => {
  it('the correct host follows the load from 5 to 6 within one timer period plus the poll interval', async () => {
    const load = { value: 5 };
    const url = await loadEndpoint(load);
    const target = { name: 'web', minScale: 1, maxScale: 20, scaleTargetRef: { kind: 'Deployment', name: 'web' }, load: { source: 'http', url, pollInterval: `${POLL_MS / 1000}s`, targetPerReplica: 1 } };
    world = await startTargetWorld(() => [target]);
    world.kube.add(WEB, { replicas: 1 });
    const hostJsonFile = path.join(path.dirname(world.rt.configFile), 'host.json');
    const ahead = await createRuntime({ configFile: world.rt.configFile, env: {}, clock: skewedClock(systemClock, HOUR), configSeq: world.rt.configuration.seq });

    // The skewed host drives the timer (and its poll follow-ups) for a few periods, sizing web for 5.
    const warnings: string[] = [];
    const aheadLog = { ...silentLog, warn: (...a: unknown[]) => void warnings.push(a.map(String).join(' ')) };
    const aheadHost = await startLocalHost({ rt: ahead, log: aheadLog, schedule: SCHEDULE, hostJsonFile });
    stops.push(() => aheadHost.stop());
    expect(await eventually(() => world!.kube.inspect(WEB)?.specReplicas === 5, 10_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2 * PERIOD_MS));
    await aheadHost.stop();
    stops.pop();
    // It said once that its clock is off, and by how much.
    expect(warnings.filter((l) => /clock/.test(l))).toEqual([expect.stringMatching(/^clock: this host's clock is 1\.0 h ahead of storage's/)]);

    // It stops; the load goes to 6; the correct host starts.
    load.value = 6;
    const correctHost = await startLocalHost({ rt: world.rt, log: silentLog, schedule: SCHEDULE, hostJsonFile });
    stops.push(() => correctHost.stop());
    const followed = await eventually(() => world!.kube.inspect(WEB)?.specReplicas === 6, PERIOD_MS + POLL_MS + 2_000);
    expect(followed).toBe(true);
  }, 60_000);
});
