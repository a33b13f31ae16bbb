// Issue 6 end to end: a metric outage never scales a target to zero (the opposite of KEDA
// #1850), whether the http source stops answering or a push source never pushed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { KubernetesScaleTargetRef } from '../../src/kubernetes/scale-target-ref.js';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { targetStatus } from '../../src/status/target-status.js';
import { startTargetWorld, worldPerTest, WEB, webTarget } from './support.js';

const API: KubernetesScaleTargetRef = { kind: 'Deployment', namespace: 'default', name: 'api' };

const opened = worldPerTest();

describe('a load source that is unreachable', () => {
  it('never lets a target scale to zero, however long the timer keeps reconciling it', async () => {
    // The http source answers 0 once, then goes away; the push target never gets a value.
    let answered = 0;
    opened.server = http.createServer((_req, res) => {
      answered++;
      if (answered === 1) res.writeHead(200).end('0');
      else res.socket?.destroy();
    });
    await new Promise<void>((resolve) => opened.server!.listen(0, '127.0.0.1', resolve));
    const clock = new ManualClock(Date.now());
    const url = `http://127.0.0.1:${(opened.server.address() as AddressInfo).port}/load`;
    opened.world = await startTargetWorld((activator) => [
      webTarget(activator, { load: { source: 'http', url, timeout: '300ms', targetPerReplica: 10 } }),
      webTarget(activator, { name: 'api', scaleTargetRef: { kind: 'Deployment', name: 'api' } }),
    ], { clock });
    const { kube, rt } = opened.world;
    kube.add(WEB, { replicas: 3 });
    kube.add(API, { replicas: 3 });
    const replicas: (number | undefined)[] = [];

    // A pass a second, as the timer runs them, on a clock of the test's own: well past the
    // stable window plus the grace period (2.5 s), with the activator answering all along.
    for (let second = 0; second < 8; second++) {
      clock.advance(1_000);
      await Promise.all(['web', 'api'].map((name) => reconcileObject(rt, { kind: 'target', name }, { reason: 'timer' }, { log: silentLog })));
      replicas.push(kube.inspect(WEB)?.specReplicas);
    }
    expect(answered).toBeGreaterThanOrEqual(5);
    expect(replicas).not.toContain(0);
    expect(kube.inspect(API)?.specReplicas).toBe(3);
    expect(kube.count('patchScale')).toBeLessThanOrEqual(1);
    const web = await readTargetRecord(rt.table('targets'), 'web');
    expect(web).toMatchObject({ lastError: expect.stringMatching(/127\.0\.0\.1/) });
    expect(web?.desiredScale).toBeUndefined();
    expect((await targetStatus(rt, rt.config.targets[0]!)).desiredScale).toBe(-1);
    expect((await targetStatus(rt, rt.config.targets[1]!)).desiredScale).toBe(-1);
    const decisions = await rt.decisions.recent(clock.now(), 50);
    expect(decisions.some((d) => d.object === 'target/web' && d.decision === 'no metrics')).toBe(true);
  });
});
