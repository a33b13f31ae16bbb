// Several load sources in production (issue 23): two http sources read in the real target pass,
// combined by max and by a formula, drive Deployments on the Kubernetes simulator; one source
// failing blocks a scale-down but not a scale-up; every source failing past the fallback's
// threshold brings the fallback's replicas, and one past it while another answers does not. Azurite
// holds the rows, on a clock of the test's own.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { KubernetesScaleTargetRef } from '../../src/kubernetes/scale-target-ref.js';
import { readSampleSeries } from '../../src/load/sample-store.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { targetStatus } from '../../src/status/target-status.js';
import { startTargetWorld, worldPerTest, webTarget } from './support.js';

const deployment = (name: string): KubernetesScaleTargetRef => ({ kind: 'Deployment', namespace: 'default', name });

const opened = worldPerTest();

/** Two metrics endpoints, /a and /b, each answering its current value, or 503 while it is undefined. */
async function metrics(values: { a: number | undefined; b: number | undefined }) {
  opened.server = http.createServer((req, res) => {
    const value = req.url === '/a' ? values.a : req.url === '/b' ? values.b : undefined;
    if (value === undefined) res.writeHead(503).end('down');
    else res.writeHead(200).end(String(value));
  });
  await new Promise<void>((resolve) => opened.server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(opened.server.address() as AddressInfo).port}`;
}

const sources = (base: string) => [
  { name: 'a', source: 'http', url: `${base}/a`, timeout: '500ms', targetPerReplica: 10 },
  { name: 'b', source: 'http', url: `${base}/b`, timeout: '500ms', targetPerReplica: 5 },
];

describe('a target with several load sources', () => {
  it('follows the larger of two sources (max) and a formula over both, each read in the pass and stored by name', async () => {
    const values = { a: 30 as number | undefined, b: 20 as number | undefined };
    const base = await metrics(values);
    const clock = new ManualClock(Date.now());
    opened.world = await startTargetWorld((activator) => [
      webTarget(activator, { minScale: 1, load: { sources: sources(base) } }),
      webTarget(activator, { name: 'api', minScale: 1, scaleTargetRef: { kind: 'Deployment', name: 'api' }, load: { sources: sources(base), combine: { formula: 'a + b', targetPerReplica: 10 } } }),
    ], { clock });
    const { kube, rt } = opened.world;
    kube.add(deployment('web'), { replicas: 2 });
    kube.add(deployment('api'), { replicas: 2 });
    const passes = async (n: number) => {
      for (let i = 0; i < n; i++) {
        clock.advance(1_000);
        for (const name of ['web', 'api']) expect((await reconcileObject(rt, { kind: 'target', name }, { reason: 'timer' }, { log: silentLog })).status).toBe('done');
      }
    };
    const scales = () => [kube.inspect(deployment('web'))?.specReplicas, kube.inspect(deployment('api'))?.specReplicas];

    // max(30 ÷ 10, 20 ÷ 5) = 4; ⌈(30 + 20) ÷ 10⌉ = 5.
    await passes(3);
    expect(scales()).toEqual([4, 5]);
    // b drops: max is a's 3, the formula 4.
    values.b = 5;
    await passes(3);
    expect(scales()).toEqual([3, 4]);
    const stored = await readSampleSeries(rt.table('samples'), 'web', ['a', 'b']);
    expect(stored.series.a!.map((s) => s.value)).toContain(30);
    expect(stored.series.b!.map((s) => s.value)).toContain(5);
  });

  it('lets a failing source block a scale-down but not a scale-up, and brings the fallback once every source fails past its threshold', async () => {
    const values = { a: 30 as number | undefined, b: 20 as number | undefined };
    const base = await metrics(values);
    const clock = new ManualClock(Date.now());
    opened.world = await startTargetWorld((activator) => [
      webTarget(activator, { minScale: 1, load: { sources: sources(base) }, fallback: { failureThreshold: 4, replicas: 7 } }),
    ], { clock });
    const { kube, rt } = opened.world;
    kube.add(deployment('web'), { replicas: 2 });
    const passes = async (n: number) => {
      for (let i = 0; i < n; i++) {
        clock.advance(1_000);
        expect((await reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'timer' }, { log: silentLog })).status).toBe('done');
      }
    };
    const scale = () => kube.inspect(deployment('web'))?.specReplicas;
    await passes(3);
    expect(scale()).toBe(4);

    // b fails and a alone would ask for 1: nothing is lowered while b fails.
    values.b = undefined;
    values.a = 10;
    await passes(2);
    expect(scale()).toBe(4);
    const held = await readTargetRecord(rt.table('targets'), 'web');
    expect(held).toMatchObject({ boundBy: 'SourceFailing', sourceHealth: expect.stringMatching(/"b":2/) });
    expect(held?.lastError).toMatch(/b: .*503/);
    // Status shows each source: a's newest value and when, b's failure.
    expect((await targetStatus(rt, rt.config.targets[0]!)).sources).toEqual([
      { name: 'a', kind: 'http', value: 10, at: new Date(clock.now()).toISOString(), error: null },
      { name: 'b', kind: 'http', value: 20, at: expect.any(String), error: expect.stringMatching(/\/b answered 503/) },
    ]);

    // Still failing (four reads in a row now), but a asks for more: a rise is allowed.
    values.a = 60;
    await passes(2);
    expect(scale()).toBe(6);

    // b answers again: the failures reset and a's 6 stands; then both fail: after more than
    // four failures in a row the fallback's 7 stands for the load.
    values.b = 10;
    await passes(1);
    expect((await readTargetRecord(rt.table('targets'), 'web'))?.sourceHealth).toBeUndefined();
    values.a = undefined;
    values.b = undefined;
    await passes(4);
    expect(scale()).toBe(6);
    await passes(1);
    expect(scale()).toBe(7);
    expect(await readTargetRecord(rt.table('targets'), 'web')).toMatchObject({ boundBy: 'FallbackActive', sourceHealth: JSON.stringify({ a: 5, b: 5 }) });
  });

  it('a formula a + (b ?? 0) follows a while b fails past the threshold, never falling to the fallback; with a failing too, the fallback (issue 31)', async () => {
    const values = { a: 40 as number | undefined, b: undefined as number | undefined };
    const base = await metrics(values);
    const clock = new ManualClock(Date.now());
    const formula = { sources: sources(base).map((s) => ({ ...s, targetPerReplica: 1 })), combine: { formula: 'a + (b ?? 0)', targetPerReplica: 1 } };
    opened.world = await startTargetWorld((activator) => [
      webTarget(activator, { minScale: 1, maxScale: 100, maxScaleDownRate: 1000, load: formula, fallback: { failureThreshold: 1, replicas: 1 } }),
    ], { clock });
    const { kube, rt } = opened.world;
    kube.add(deployment('web'), { replicas: 6 });
    const seen: (number | undefined)[] = [];
    const passes = async (n: number) => {
      for (let i = 0; i < n; i++) {
        clock.advance(1_000);
        expect((await reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'timer' }, { log: silentLog })).status).toBe('done');
        seen.push(kube.inspect(deployment('web'))?.specReplicas);
      }
    };
    // b fails from the first pass: past the threshold from the second on; a's 40 is followed.
    await passes(4);
    expect(seen.slice(-2)).toEqual([40, 40]);
    expect(seen.every((v) => v !== undefined && v >= 6), String(seen)).toBe(true);
    // a asks for less while b still fails: nothing is lowered.
    values.a = 3;
    await passes(2);
    expect(seen.slice(-2)).toEqual([40, 40]);
    expect(await readTargetRecord(rt.table('targets'), 'web')).toMatchObject({ boundBy: 'SourceFailing' });
    // a fails too: once both are past the threshold, the fallback's 1.
    values.a = undefined;
    await passes(2);
    expect(seen.at(-1)).toBe(1);
    expect(await readTargetRecord(rt.table('targets'), 'web')).toMatchObject({ boundBy: 'FallbackActive' });
  });
});
