// The Kubernetes adapter through the real @kubernetes/client-node against the simulator.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { KubernetesScaleTargets } from '../../src/kubernetes/client-node-scale-targets.js';
import { KubernetesRequestError, RateLimitedError, TargetConflictError, TargetNotFoundError } from '../../src/kubernetes/errors.js';
import type { KubernetesScaleTargetRef } from '../../src/kubernetes/scale-target-ref.js';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';

const deployment: KubernetesScaleTargetRef = { kind: 'Deployment', namespace: 'default', name: 'web' };
const statefulSet: KubernetesScaleTargetRef = { kind: 'StatefulSet', apiVersion: 'apps/v1', namespace: 'jobs', name: 'db' };
const widget: KubernetesScaleTargetRef = { group: 'example.com', version: 'v1', plural: 'widgets', namespace: 'default', name: 'w1' };

let sim: KubernetesSim;
let api: KubernetesScaleTargets;
const clock = new ManualClock();

beforeAll(async () => {
  sim = await startKubernetesSim({ clock });
  const kc = new KubeConfig();
  kc.loadFromOptions(sim.kubeconfigOptions({ token: 'sim-token' }));
  api = new KubernetesScaleTargets(kc);
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  for (const ref of [deployment, statefulSet, widget]) sim.remove(ref);
  sim.readyDelayMs = 0;
  sim.resetCounters();
});

describe('readScale', () => {
  it.each([
    { name: 'a Deployment: spec and ready replicas from the object', ref: deployment, init: { replicas: 3, readyReplicas: 2 }, want: { specReplicas: 3, readyReplicas: 2 } },
    { name: 'a StatefulSet: spec and ready replicas from the object', ref: statefulSet, init: { replicas: 2 }, want: { specReplicas: 2, readyReplicas: 2 } },
    { name: 'a Deployment at zero reads 0, not unset', ref: deployment, init: { replicas: 0 }, want: { specReplicas: 0, readyReplicas: 0 } },
    { name: 'a Deployment without replicas reads as unset', ref: deployment, init: { readyReplicas: 1 }, want: { readyReplicas: 1 } },
    { name: 'a generic /scale resource: spec and status replicas of its Scale', ref: widget, init: { replicas: 4, readyReplicas: 1 }, want: { specReplicas: 4, readyReplicas: 1 } },
    { name: 'a generic /scale resource at zero reads 0 (the Scale omits it)', ref: widget, init: { replicas: 0 }, want: { specReplicas: 0, readyReplicas: 0 } },
  ])('$name', async ({ ref, init, want }) => {
    sim.add(ref, init);
    expect(await api.readScale(ref)).toEqual({ ...want, resourceVersion: expect.stringMatching(/^\d+$/) });
  });

  it('reads a workload with one GET of the object, a generic resource with one GET of its Scale', async () => {
    sim.add(deployment, { replicas: 1 });
    sim.add(widget, { replicas: 1 });
    await api.readScale(deployment);
    await api.readScale(widget);
    expect(sim.requests.map((r) => [r.op, r.path])).toEqual([
      ['get', '/apis/apps/v1/namespaces/default/deployments/web'],
      ['getScale', '/apis/example.com/v1/namespaces/default/widgets/w1/scale'],
    ]);
    expect(sim.requests[0]?.authorization).toBe('Bearer sim-token');
  });

  it('reports a missing target as TargetNotFoundError naming it', async () => {
    const error: unknown = await api.readScale(deployment).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetNotFoundError);
    expect((error as Error).message).toBe('scale target Deployment default/web not found');
  });

  it('wraps other failures with the target and the server message', async () => {
    sim.add(widget, { replicas: 1 });
    sim.failNext('getScale', 500, 'etcd is on fire');
    const error: unknown = await api.readScale(widget).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesRequestError);
    expect(error).toMatchObject({
      statusCode: 500,
      message: 'failed to read the scale of example.com/v1 widgets default/w1: HTTP 500: etcd is on fire',
    });
  });

  it('rejects a workload apiVersion other than apps/v1 without a request', async () => {
    const error: unknown = await api.readScale({ ...deployment, apiVersion: 'apps/v1beta1' }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/scaleTargetRef\.apiVersion: expected apps\/v1 for a Deployment, got "apps\/v1beta1"/);
    expect(sim.requests).toHaveLength(0);
  });
});

describe('patchScale', () => {
  it.each([
    { name: 'a Deployment', ref: deployment, path: '/apis/apps/v1/namespaces/default/deployments/web/scale' },
    { name: 'a StatefulSet', ref: statefulSet, path: '/apis/apps/v1/namespaces/jobs/statefulsets/db/scale' },
    { name: 'a generic /scale resource', ref: widget, path: '/apis/example.com/v1/namespaces/default/widgets/w1/scale' },
  ])('sets the replicas of $name with a JSON patch on its Scale', async ({ ref, path }) => {
    sim.add(ref, { replicas: 2 });
    await api.patchScale(ref, 5, { kind: 'replicas', replicas: 2 });
    expect(sim.inspect(ref)?.specReplicas).toBe(5);
    expect(sim.requests).toEqual([
      expect.objectContaining({
        op: 'patchScale',
        path,
        contentType: 'application/json-patch+json',
        body: [
          { op: 'test', path: '/spec/replicas', value: 2 },
          { op: 'add', path: '/spec/replicas', value: 5 },
        ],
        status: 200,
      }),
    ]);
  });

  it('scales up from zero, where the Scale has no replicas field to replace', async () => {
    sim.add(widget, { replicas: 0 });
    const read = await api.readScale(widget);
    await api.patchScale(widget, 1, { kind: 'resourceVersion', resourceVersion: read.resourceVersion! });
    expect(await api.readScale(widget)).toMatchObject({ specReplicas: 1, readyReplicas: 1 });
  });

  it('reports a vanished target as TargetNotFoundError', async () => {
    const error: unknown = await api.patchScale(statefulSet, 1, { kind: 'replicas', replicas: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetNotFoundError);
    expect((error as Error).message).toBe('scale target StatefulSet jobs/db not found');
  });

  it('reports a 409 as TargetConflictError', async () => {
    sim.add(deployment, { replicas: 1 });
    sim.failNext('patchScale', 409, 'the object has been modified');
    const error: unknown = await api.patchScale(deployment, 2, { kind: 'replicas', replicas: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetConflictError);
    expect(sim.inspect(deployment)?.specReplicas).toBe(1);
  });

  it('reports a 429 as the shared RateLimitedError, source kubernetes', async () => {
    sim.add(deployment, { replicas: 1 });
    sim.failNext('patchScale', 429, 'too many requests');
    const error: unknown = await api.patchScale(deployment, 2, { kind: 'replicas', replicas: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ source: 'kubernetes', subject: 'Deployment default/web', retryAfterMs: 0 });
    expect(sim.inspect(deployment)?.specReplicas).toBe(1);
  });

  it('refuses a patch whose replicas test fails (422) as TargetConflictError, changing nothing', async () => {
    sim.add(deployment, { replicas: 5 });
    const error: unknown = await api.patchScale(deployment, 8, { kind: 'replicas', replicas: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetConflictError);
    expect(sim.requests.at(-1)?.status).toBe(422);
    expect(sim.inspect(deployment)?.specReplicas).toBe(5);
  });

  it('refuses a patch carrying a stale resourceVersion (409) as TargetConflictError, changing nothing', async () => {
    sim.add(widget, { replicas: 0 });
    const read = await api.readScale(widget);
    await api.patchScale(widget, 2, { kind: 'resourceVersion', resourceVersion: read.resourceVersion! });
    const error: unknown = await api.patchScale(widget, 4, { kind: 'resourceVersion', resourceVersion: read.resourceVersion! }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetConflictError);
    expect(sim.requests.at(-1)?.status).toBe(409);
    expect(sim.inspect(widget)?.specReplicas).toBe(2);
  });

  it('reports any other 422 of a read as a request error', async () => {
    sim.add(widget, { replicas: 1 });
    sim.failNext('getScale', 422, 'invalid');
    const error: unknown = await api.readScale(widget).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesRequestError);
  });
});

describe('readiness', () => {
  it('ready replicas follow the patched spec after the simulator delay', async () => {
    sim.readyDelayMs = 5_000;
    sim.add(deployment, { replicas: 1 });
    await api.patchScale(deployment, 4, { kind: 'replicas', replicas: 1 });
    expect(await api.readScale(deployment)).toMatchObject({ specReplicas: 4, readyReplicas: 1 });
    clock.advance(4_999);
    expect((await api.readScale(deployment)).readyReplicas).toBe(1);
    clock.advance(1);
    expect((await api.readScale(deployment)).readyReplicas).toBe(4);
  });
});

describe('what API servers send besides the specification, tolerated', () => {
  async function quirkyApi(quirks: Parameters<typeof startKubernetesSim>[0]): Promise<{ quirky: KubernetesSim; api: KubernetesScaleTargets }> {
    const quirky = await startKubernetesSim({ clock, ...quirks });
    const kc = new KubeConfig();
    kc.loadFromOptions(quirky.kubeconfigOptions({ token: 'sim-token' }));
    return { quirky, api: new KubernetesScaleTargets(kc) };
  }

  it.each([
    { name: 'a Deployment whose object, spec and status carry unknown fields reads as without them', ref: deployment, want: { specReplicas: 3, readyReplicas: 2 } },
    { name: 'a generic Scale whose spec and status carry unknown fields reads as without them', ref: widget, want: { specReplicas: 3, readyReplicas: 2 } },
  ])('$name, and is patched', async ({ ref, want }) => {
    const { quirky, api: tolerant } = await quirkyApi({ quirks: { unknownFields: true } });
    try {
      quirky.add(ref, { replicas: 3, readyReplicas: 2 });
      expect(await tolerant.readScale(ref)).toEqual({ ...want, resourceVersion: expect.stringMatching(/^\d+$/) });
      await tolerant.patchScale(ref, 5, { kind: 'replicas', replicas: 3 });
      expect(quirky.inspect(ref)?.specReplicas).toBe(5);
    } finally {
      await quirky.close();
    }
  });

  it('a generic Scale without status.replicas reads 0 ready replicas and is patched', async () => {
    const { quirky, api: tolerant } = await quirkyApi({ quirks: { scaleWithoutStatusReplicas: true } });
    try {
      quirky.add(widget, { replicas: 4, readyReplicas: 3 });
      expect(await tolerant.readScale(widget)).toEqual({ specReplicas: 4, readyReplicas: 0, resourceVersion: expect.stringMatching(/^\d+$/) });
      await tolerant.patchScale(widget, 6, { kind: 'replicas', replicas: 4 });
      expect(quirky.inspect(widget)?.specReplicas).toBe(6);
    } finally {
      await quirky.close();
    }
  });
});
