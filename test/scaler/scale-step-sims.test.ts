// One scale step end to end: the decision, the synchronous probe against the activator
// simulator and the real Kubernetes client (fenced patches) against the Kubernetes simulator.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KubernetesScaleTargets } from '../../src/kubernetes/client-node-scale-targets.js';
import { TargetConflictError } from '../../src/kubernetes/errors.js';
import type { KubernetesScaleTargetRef } from '../../src/kubernetes/scale-target-ref.js';
import { probeActivator } from '../../src/probe/activator-probe.js';
import { markInactive } from '../../src/scaler/read/conditions.js';
import { conditionFields, type TargetRecord } from '../../src/scaler/read/target-record.js';
import { runScaleStep, type ScaleStepPorts } from '../../src/scaler/write/scale-step.js';
import { preconditionOf, type ObservedTarget } from '../../src/scaler/read/target-port.js';
import { startActivatorSim, type ActivatorSim } from '../../sim/activator/server.js';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const web: KubernetesScaleTargetRef = { kind: 'Deployment', namespace: 'default', name: 'web' };

let kube: KubernetesSim;
let activator: ActivatorSim;
let api: KubernetesScaleTargets;
let ports: ScaleStepPorts;
beforeAll(async () => {
  [kube, activator] = await Promise.all([startKubernetesSim(), startActivatorSim()]);
  const kc = new KubeConfig();
  kc.loadFromOptions(kube.kubeconfigOptions());
  api = new KubernetesScaleTargets(kc);
  ports = {
    target: { kind: 'kubernetes', write: (replicas, observed) => api.patchScale(web, replicas, preconditionOf(observed, 'web')).then(() => undefined) },
    probeActivator: () => probeActivator(activator.probeUrl, { timeoutMs: 500 }),
    checkLease: () => Promise.resolve(),
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

const inactivePastGrace: TargetRecord = { ...(conditionFields(markInactive({}, NOW - 31_000)) as TargetRecord), revision: 3 };

async function step(observed: ObservedTarget, load: number) {
  return runScaleStep(
    {
      record: inactivePastGrace,
      samples: { average: () => load },
      holdLatest: false,
      view: { kind: 'read', observed },
      settings: {
        bounds: { minScale: 0, maxScale: 0 },
        scaleToZero: { enableScaleToZero: true, stableWindowMs: 60_000, gracePeriodMs: 30_000 },
        desired: { targetPerReplica: 1, stableWindowMs: 60_000, maxScaleUpRate: 1000, maxScaleDownRate: 2, panic: { enabled: false, windowMs: 6_000, thresholdPercent: 200 } },
      },
      loadNote: 'test',
      trigger: 'test',
      dryRun: false,
      now: NOW,
    },
    ports,
  );
}

async function read(): Promise<ObservedTarget> {
  const { specReplicas, readyReplicas, resourceVersion } = await api.readScale(web);
  return { ...(specReplicas === undefined ? {} : { specReplicas }), ready: readyReplicas, ...(resourceVersion ? { resourceVersion } : {}) };
}

describe('runScaleStep against the simulators', () => {
  it('scales an idle Deployment to zero once the activator answers', async () => {
    activator.setPresent(true);
    const outcome = await step(await read(), 0);
    expect(outcome).toMatchObject({ probe: { ok: true }, write: { kind: 'written', from: 1, to: 0 } });
    expect(kube.inspect(web)?.specReplicas).toBe(0);
    expect(activator.probes).toBe(1);
  });

  it('leaves the Deployment alone and offers an async probe while the activator is absent', async () => {
    activator.setPresent(false);
    const outcome = await step(await read(), 0);
    expect(outcome).toMatchObject({ probe: { ok: false }, write: { kind: 'none' }, offerAsyncProbe: true });
    expect(kube.count('patchScale')).toBe(0);
  });

  it('a patch over a stale read is refused and changes nothing', async () => {
    const stale = await read();
    await api.patchScale(web, 6, preconditionOf(stale, 'web'));
    const outcome = await step(stale, 3);
    expect(outcome.write).toMatchObject({ kind: 'failed', from: 1, to: 3 });
    expect(kube.inspect(web)?.specReplicas).toBe(6);
  });

  it('a patch over a stale read of a target at 0 is refused on its resourceVersion', async () => {
    kube.remove(web);
    kube.add(web, { replicas: 0 });
    const stale = await read();
    await api.patchScale(web, 2, preconditionOf(stale, 'web'));
    const error: unknown = await api.patchScale(web, 5, preconditionOf(stale, 'web')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetConflictError);
    expect(kube.inspect(web)?.specReplicas).toBe(2);
  });

  it('reports a Deployment that vanished', async () => {
    const observed = await read();
    kube.remove(web);
    const outcome = await step(observed, 3);
    expect(outcome.write.kind).toBe('missing');
  });
});
