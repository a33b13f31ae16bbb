// Fresh signals end to end: an http target with pollInterval 2s, on Azurite and the Kubernetes
// simulator, with the local host polling the real reconcile queue and no timer tick at all. A
// load change reaches the Deployment within a few seconds, and the chains of several forced
// reconciles collapse into one poll per instant instead of multiplying.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { eventually, startTargetWorld, worldPerTest, WEB, webTarget } from './support.js';

const opened = worldPerTest();

describe('an http source with pollInterval 2s', () => {
  it('is read every 2 s through delayed reconcile messages, and its load change is patched within seconds', async () => {
    let load = 10;
    const reads: number[] = [];
    opened.server = http.createServer((_req, res) => {
      reads.push(Date.now());
      res.writeHead(200).end(String(load));
    });
    await new Promise<void>((resolve) => opened.server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(opened.server.address() as AddressInfo).port}/load`;
    opened.world = await startTargetWorld((activator) => [
      webTarget(activator, { scaleToZero: { enabled: false }, load: { source: 'http', url, targetPerReplica: 10, pollInterval: '2s' } }),
    ]);
    const { kube, rt } = opened.world;
    kube.add(WEB, { replicas: 1 });
    await opened.world.startHost();
    // Three forced reconciles start three chains; on the 2 s grid they are one.
    for (let i = 0; i < 3; i++) await rt.queues.reconcile({ kind: 'target', name: 'web', reason: 'forced' });
    expect(await eventually(() => reads.length > 0, 15_000)).toBe(true);
    const first = reads[0]!;
    await new Promise((resolve) => setTimeout(resolve, first + 12_000 - Date.now()));
    // Past the start (adoption, its follow-up, the forced reconciles found busy): one read per
    // 2 s instant, not one per chain (nine in 6 s) nor one per delivery (a pass asking for its
    // next poll while its own marker was served ran again at once: six). A delayed message
    // comes up to a second late, so a 6 s window holds three instants' reads, or four.
    const steady = reads.filter((at) => at >= first + 6_000 && at < first + 12_000);
    expect(steady.length).toBeGreaterThanOrEqual(2);
    expect(steady.length).toBeLessThanOrEqual(4);

    load = 45;
    const changed = Date.now();
    expect(await eventually(() => (kube.inspect(WEB)?.specReplicas ?? 0) > 1, 6_000)).toBe(true);
    expect(Date.now() - changed).toBeLessThan(5_000);
  }, 35_000);
});
