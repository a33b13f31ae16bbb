// One scale step end to end: the decision, the synchronous probe against the activator
// simulator and the real Kubernetes client against the Kubernetes simulator.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KubernetesScaleTargets } from '../../src/kubernetes/client-node-scale-targets.js';
import type { KubernetesScaleTargetRef } from '../../src/kubernetes/scale-target-ref.js';
import { probeActivator } from '../../src/probe/activator-probe.js';
import { markInactive } from '../../src/scaler/conditions.js';
import { scaleTarget, type ScaleTargetPorts } from '../../src/scaler/scale-target.js';
import { startActivatorSim, type ActivatorSim } from '../../sim/activator/server.js';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const web: KubernetesScaleTargetRef = { kind: 'Deployment', namespace: 'default', name: 'web' };

let kube: KubernetesSim;
let activator: ActivatorSim;
let ports: ScaleTargetPorts;
beforeAll(async () => {
  [kube, activator] = await Promise.all([startKubernetesSim(), startActivatorSim()]);
  const kc = new KubeConfig();
  kc.loadFromOptions(kube.kubeconfigOptions());
  const api = new KubernetesScaleTargets(kc);
  ports = {
    probeActivator: () => probeActivator(activator.probeUrl, { timeoutMs: 500 }),
    readScale: () => api.readScale(web),
    patchScale: (replicas) => api.patchScale(web, replicas),
  };
});
afterAll(async () => {
  await Promise.all([kube.close(), activator.close()]);
});
beforeEach(() => {
  kube.remove(web);
  kube.add(web, { replicas: 1 });
  kube.resetCounters();
  activator.reset();
});

const inactivePastGrace = {
  desired: 0,
  bounds: { minScale: 0, maxScale: 0 },
  conditions: markInactive({}, NOW - 31_000),
  settings: { enableScaleToZero: true, stableWindowMs: 60_000, gracePeriodMs: 30_000 },
  activatorSeenSince: null,
  now: NOW,
};

describe('scaleTarget against the simulators', () => {
  it('scales an idle Deployment to zero once the activator answers', async () => {
    activator.setPresent(true);
    const outcome = await scaleTarget(inactivePastGrace, ports);
    expect(outcome).toMatchObject({ ok: true, probed: true, patch: { patch: true, from: 1, to: 0 } });
    expect(kube.inspect(web)?.specReplicas).toBe(0);
    expect(activator.probes).toBe(1);
  });

  it('leaves the Deployment alone and offers an async probe while the activator is absent', async () => {
    activator.setPresent(false);
    const outcome = await scaleTarget(inactivePastGrace, ports);
    expect(outcome).toMatchObject({ ok: true, probed: true, patch: null, plan: { offerAsyncProbe: true } });
    expect(kube.count('patchScale')).toBe(0);
    expect(kube.count('get')).toBe(0);
  });

  it('reports a Deployment that vanished', async () => {
    kube.remove(web);
    const outcome = await scaleTarget({ ...inactivePastGrace, desired: 3 }, ports);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect((outcome.error as Error).name).toBe('TargetNotFoundError');
  });
});
