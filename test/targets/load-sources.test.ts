// Issue 6 end to end: a metric outage never scales a target to zero (the opposite of KEDA
// #1850), whether the http source stops answering or a push source never pushed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubernetesScaleTargetRef } from '../../src/kubernetes/scale-target-ref.js';
import { readTargetRecord } from '../../src/scaler/shell/target-store.js';
import { targetStatus } from '../../src/status/target-status.js';
import { eventually, startTargetWorld, WEB, webTarget, type TargetWorld } from './support.js';

const API: KubernetesScaleTargetRef = { kind: 'Deployment', namespace: 'default', name: 'api' };

let world: TargetWorld | undefined;
let server: http.Server | undefined;
afterEach(async () => {
  await world?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  world = undefined;
  server = undefined;
});

describe('a load source that is unreachable', () => {
  it('never lets a target scale to zero, however long the timer keeps reconciling it', async () => {
    // The http source answers 0 once, then goes away; the push target never gets a value.
    let answered = 0;
    server = http.createServer((_req, res) => {
      answered++;
      if (answered === 1) res.writeHead(200).end('0');
      else res.socket?.destroy();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/load`;
    world = await startTargetWorld((activator) => [
      webTarget(activator, { load: { source: 'http', url, timeout: '300ms', targetPerReplica: 10 } }),
      webTarget(activator, { name: 'api', scaleTargetRef: { kind: 'Deployment', name: 'api' } }),
    ]);
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 3 });
    kube.add(API, { replicas: 3 });
    await world.startHost('* * * * * *');
    const timeline = world.timeline();
    const start = Date.now();

    // Well past stable window + grace period (2.5 s), with the activator answering all along.
    expect(await eventually(() => Date.now() - start > 5_000 && answered >= 5, 9_000)).toBe(true);
    timeline.stop();
    expect(timeline.values.map((v) => v.replicas)).not.toContain(0);
    expect(kube.inspect(API)?.specReplicas).toBe(3);
    expect(kube.count('patchScale')).toBeLessThanOrEqual(1);
    const web = await readTargetRecord(rt.table('targets'), 'web');
    expect(web).toMatchObject({ lastError: expect.stringMatching(/127\.0\.0\.1/) });
    expect(web?.desiredScale).toBeUndefined();
    expect((await targetStatus(rt, rt.config.targets[0]!)).desiredScale).toBe(-1);
    expect((await targetStatus(rt, rt.config.targets[1]!)).desiredScale).toBe(-1);
    const decisions = await rt.decisions.recent(Date.now(), 50);
    expect(decisions.some((d) => d.object === 'target/web' && d.decision === 'no metrics')).toBe(true);
  });
});
