// The resource source against the Kubernetes simulator: the scale subresource's selector, the
// pods and their metrics.k8s.io PodMetrics read with @kubernetes/client-node, then HPA's calculator.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podMetricsApi } from '../../src/kubernetes/pod-metrics-api.js';
import { readResource } from '../../src/load/resource-source.js';
import type { KubernetesScaleTargetRef } from '../../src/kubernetes/scale-target-ref.js';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';
import type { JsonObject } from '../../sim/kubernetes/documents.js';
import { planDriver, settingsOf, T0 } from '../scaler/plan-driver.js';

const NOW = Date.UTC(2026, 11, 7, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const WEB: KubernetesScaleTargetRef = { kind: 'Deployment', namespace: 'shop', name: 'web' };

let sim: KubernetesSim;
beforeAll(async () => {
  sim = await startKubernetesSim();
  sim.add(WEB, { replicas: 4, readyReplicas: 4 });
});
afterAll(() => sim.close());

/** A running pod of `app` ready for an hour, requesting 500m CPU per container named. */
function pod(name: string, app: string, containers: JsonObject[] = [{ name: 'app', resources: { requests: { cpu: '500m' } } }]): JsonObject {
  return {
    metadata: { name, namespace: 'shop', labels: { app } },
    spec: { containers },
    status: { phase: 'Running', startTime: iso(NOW - 3_600_000), conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso(NOW - 3_500_000) }] },
  };
}
const metrics = (name: string, app: string, cpu: string): JsonObject => ({ metadata: { name, namespace: 'shop', labels: { app } }, timestamp: iso(NOW - 10_000), window: '30s', containers: [{ name: 'app', usage: { cpu, memory: '100Mi' } }] });

function read() {
  const kc = new KubeConfig();
  kc.loadFromOptions(sim.kubeconfigOptions({ token: 'sim-token' }));
  const api = podMetricsApi(kc);
  return readResource({ resource: 'cpu', targetPerReplica: 60 }, { kubernetes: async () => api, target: { name: 'web', ref: { kind: 'kubernetes', ref: WEB } }, now: () => NOW }, AbortSignal.timeout(5_000));
}

describe('resource against the Kubernetes simulator', () => {
  it('a Deployment of 4 pods at 90 % CPU of requests with 60 → 6 (pods of another app left out)', async () => {
    const names = ['web-a', 'web-b', 'web-c', 'web-d'];
    sim.setPods('shop', [...names.map((n) => pod(n, 'web')), pod('api-a', 'api')], [...names.map((n) => metrics(n, 'web', '450m')), metrics('api-a', 'api', '10m')]);
    const reading = await read();
    expect(reading).toEqual({ ok: true, value: 6 * 60 });
    expect(sim.requests.filter((r) => r.op === 'listPods' || r.op === 'listPodMetrics' || r.op === 'getScale').map((r) => r.op).sort()).toEqual(['getScale', 'listPodMetrics', 'listPods']);
    const settings = settingsOf({ load: { source: 'resource', resource: 'cpu', targetPerReplica: 60 }, minScale: 1, maxScale: 50 });
    const step = await planDriver(settings, { current: 4 }).step({ at: T0, load: reading.ok ? reading.value : Number.NaN, ready: 4 });
    expect(step.outcome.desired.kind === 'known' ? step.outcome.desired.desired : undefined).toBe(6);
  });

  it('a container without a request fails naming it', async () => {
    sim.setPods('shop', [pod('web-a', 'web', [{ name: 'app', resources: { requests: { cpu: '500m' } } }, { name: 'logger', resources: {} }])], [metrics('web-a', 'web', '450m')]);
    expect(await read()).toMatchObject({ ok: false, error: expect.stringMatching(/resource cpu of web: missing cpu request in container logger of pod web-a/) });
  });

  it('metrics.k8s.io failing is a failure of the source, not 0', async () => {
    sim.setPods('shop', [pod('web-a', 'web')], [metrics('web-a', 'web', '450m')]);
    sim.failNext('listPodMetrics', 503, 'the server is currently unable to handle the request');
    expect(await read()).toMatchObject({ ok: false, error: expect.stringMatching(/resource cpu of web: .*503/) });
  });
});
