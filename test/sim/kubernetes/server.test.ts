// The Kubernetes API simulator over raw HTTP: routes, patch formats, Status errors, readiness
// and its control API.
import { AppsV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import type { KubernetesScaleTargetRef } from '../../../src/kubernetes/scale-target-ref.js';
import { startKubernetesSim, type KubernetesSim } from '../../../sim/kubernetes/server.js';

const web: KubernetesScaleTargetRef = { kind: 'Deployment', namespace: 'default', name: 'web' };
const widget: KubernetesScaleTargetRef = { group: 'example.com', version: 'v1', plural: 'widgets', namespace: 'default', name: 'w1' };
const WEB_SCALE = '/apis/apps/v1/namespaces/default/deployments/web/scale';

const clock = new ManualClock();
let sim: KubernetesSim;
beforeAll(async () => {
  sim = await startKubernetesSim({ clock });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.remove(web);
  sim.remove(widget);
  sim.readyDelayMs = 0;
  sim.resetCounters();
});

async function call(method: string, path: string, body?: unknown, contentType = 'application/json-patch+json') {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': contentType } }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('PATCH /scale', () => {
  it.each([
    { name: 'JSON patch add sets the replicas', start: 2, contentType: 'application/json-patch+json', body: [{ op: 'add', path: '/spec/replicas', value: 5 }], status: 200, want: 5 },
    { name: 'JSON patch replace of present replicas sets them', start: 2, contentType: 'application/json-patch+json', body: [{ op: 'replace', path: '/spec/replicas', value: 5 }], status: 200, want: 5 },
    { name: 'JSON patch replace on a Scale at 0 fails: the field is omitted', start: 0, contentType: 'application/json-patch+json', body: [{ op: 'replace', path: '/spec/replicas', value: 1 }], status: 422, want: 0 },
    { name: 'JSON patch with a failing test changes nothing', start: 2, contentType: 'application/json-patch+json', body: [{ op: 'test', path: '/spec/replicas', value: 3 }, { op: 'add', path: '/spec/replicas', value: 5 }], status: 422, want: 2 },
    { name: 'JSON patch with a passing test applies', start: 2, contentType: 'application/json-patch+json', body: [{ op: 'test', path: '/spec/replicas', value: 2 }, { op: 'add', path: '/spec/replicas', value: 5 }], status: 200, want: 5 },
    { name: 'JSON patch remove sets 0', start: 2, contentType: 'application/json-patch+json', body: [{ op: 'remove', path: '/spec/replicas' }], status: 200, want: 0 },
    { name: 'JSON patch that is not an array is refused', start: 2, contentType: 'application/json-patch+json', body: { spec: { replicas: 5 } }, status: 422, want: 2 },
    { name: 'merge patch sets the replicas', start: 2, contentType: 'application/merge-patch+json', body: { spec: { replicas: 7 } }, status: 200, want: 7 },
    { name: 'strategic merge patch sets the replicas', start: 2, contentType: 'application/strategic-merge-patch+json', body: { spec: { replicas: 3 } }, status: 200, want: 3 },
    { name: 'a negative replica count is invalid', start: 2, contentType: 'application/merge-patch+json', body: { spec: { replicas: -1 } }, status: 422, want: 2 },
    { name: 'a fractional replica count is invalid', start: 2, contentType: 'application/merge-patch+json', body: { spec: { replicas: 1.5 } }, status: 422, want: 2 },
    { name: 'an unsupported content type is refused', start: 2, contentType: 'application/apply-patch+yaml', body: { spec: { replicas: 4 } }, status: 415, want: 2 },
  ])('$name', async ({ start, contentType, body, status, want }) => {
    sim.add(web, { replicas: start });
    const res = await call('PATCH', WEB_SCALE, body, contentType);
    expect(res.status).toBe(status);
    if (status !== 200) expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', code: status });
    expect(sim.inspect(web)?.specReplicas).toBe(want);
  });

  it('answers with the new Scale', async () => {
    sim.add(web, { replicas: 1 });
    const res = await call('PATCH', WEB_SCALE, [{ op: 'add', path: '/spec/replicas', value: 3 }]);
    expect(res.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 3 }, metadata: { name: 'web', namespace: 'default' } });
  });
});

describe('GET', () => {
  it('serves a Deployment with apiserver-shaped fields', async () => {
    sim.add(web, { replicas: 0 });
    const res = await call('GET', '/apis/apps/v1/namespaces/default/deployments/web');
    expect(res.body).toMatchObject({ kind: 'Deployment', apiVersion: 'apps/v1', spec: { replicas: 0 }, status: { observedGeneration: 1 } });
    expect(res.body.status).not.toHaveProperty('readyReplicas');
  });

  it('serves a Scale that omits zero replicas', async () => {
    sim.add(widget, { replicas: 0 });
    const res = await call('GET', '/apis/example.com/v1/namespaces/default/widgets/w1/scale');
    expect(res.body).toMatchObject({ kind: 'Scale', spec: {}, status: { selector: 'app=w1' } });
  });

  it('serves a Deployment through the generic /scale path too', async () => {
    sim.add(web, { replicas: 2 });
    expect((await call('GET', WEB_SCALE)).body).toMatchObject({ spec: { replicas: 2 }, status: { replicas: 2 } });
  });

  it.each([
    { name: 'a missing object is a NotFound Status', method: 'GET', path: '/apis/apps/v1/namespaces/default/deployments/gone', status: 404, reason: 'NotFound' },
    { name: 'a resource in another version is not found', method: 'GET', path: '/apis/example.com/v2/namespaces/default/widgets/w1/scale', status: 404, reason: 'NotFound' },
    { name: 'an unserved path is not found', method: 'GET', path: '/api/v1/namespaces/default/secrets', status: 404, reason: 'NotFound' },
    { name: 'PATCH of the object itself is not served', method: 'PATCH', path: '/apis/apps/v1/namespaces/default/deployments/web', status: 405, reason: 'MethodNotAllowed' },
  ])('$name', async ({ method, path, status, reason }) => {
    sim.add(widget, { replicas: 1 });
    sim.add(web, { replicas: 1 });
    const res = await call(method, path, method === 'PATCH' ? [] : undefined);
    expect(res).toMatchObject({ status, body: { kind: 'Status', code: status, reason } });
  });
});

describe('control API', () => {
  it('counts requests per operation', async () => {
    sim.add(web, { replicas: 1 });
    await call('GET', '/apis/apps/v1/namespaces/default/deployments/web');
    await call('GET', WEB_SCALE);
    await call('GET', WEB_SCALE);
    await call('PATCH', WEB_SCALE, [{ op: 'add', path: '/spec/replicas', value: 2 }]);
    expect([sim.count('get'), sim.count('getScale'), sim.count('patchScale')]).toEqual([1, 2, 1]);
  });

  it('fails the next request of an operation once', async () => {
    sim.add(web, { replicas: 1 });
    sim.failNext('getScale', 429, 'slow down');
    expect(await call('GET', WEB_SCALE)).toMatchObject({ status: 429, body: { reason: 'TooManyRequests', message: 'slow down' } });
    expect((await call('GET', WEB_SCALE)).status).toBe(200);
  });

  it('makes ready replicas follow the spec, up and down, after the delay', async () => {
    sim.readyDelayMs = 10_000;
    sim.add(web, { replicas: 3 });
    expect(sim.inspect(web)?.readyReplicas).toBe(3);
    await call('PATCH', WEB_SCALE, [{ op: 'add', path: '/spec/replicas', value: 0 }]);
    clock.advance(9_999);
    expect(sim.inspect(web)?.readyReplicas).toBe(3);
    clock.advance(1);
    expect(sim.inspect(web)?.readyReplicas).toBe(0);
  });

  it('uses an object\'s own delay over the default', async () => {
    sim.readyDelayMs = 10_000;
    sim.add(widget, { replicas: 1, readyDelayMs: 100 });
    await call('PATCH', '/apis/example.com/v1/namespaces/default/widgets/w1/scale', { spec: { replicas: 2 } }, 'application/merge-patch+json');
    clock.advance(100);
    expect(sim.inspect(widget)?.readyReplicas).toBe(2);
  });

  it('holds scripted ready replicas until the spec changes', () => {
    sim.add(web, { replicas: 3, readyReplicas: 1 });
    clock.advance(60_000);
    expect(sim.inspect(web)?.readyReplicas).toBe(1);
    sim.setReadyReplicas(web, 2);
    expect(sim.inspect(web)?.readyReplicas).toBe(2);
  });

  it('hands out a kubeconfig YAML the real client loads', async () => {
    sim.add(web, { replicas: 4 });
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml({ token: 't0k3n' }));
    const deployment = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: 'default', name: 'web' });
    expect(deployment.spec?.replicas).toBe(4);
    expect(sim.requests.at(-1)?.authorization).toBe('Bearer t0k3n');
  });
});
