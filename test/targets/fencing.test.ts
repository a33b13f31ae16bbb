// Two holders of one target: the first one's lease runs out between its read and its patch,
// a second holder reconciles meanwhile. The second one's scale stands, the first one's patch is
// refused by the API server (its JSON patch `test` of the replicas it read fails) and it writes
// nothing to the tables afterwards.
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { KubernetesScaleTargets } from '../../src/kubernetes/client-node-scale-targets.js';
import type { ScaleTargetApi } from '../../src/kubernetes/scale-target-api.js';
import { readSamples } from '../support/samples.js';
import { silentLog } from '../../src/log.js';
import { LEASE_TTL_MS, reconcileObject } from '../../src/reconcile/object.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { readTargetRecord, writeTargetRecord } from '../../src/scaler/read/target-store.js';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';
import { azuriteStorage, writeConfig } from '../support/config.js';
import { WEB } from './support.js';
import { simulatedService } from '../../src/state/service-clock.js';
import { pushThenReconcile } from '../support/push.js';

let kube: KubernetesSim | undefined;
afterEach(async () => {
  await kube?.close();
  kube = undefined;
});

const web = { kind: 'target', name: 'web' } as const;
/** The configuration's default scaleToZero.stableWindow, over which load is averaged. */
const STABLE_WINDOW_MS = 60_000;

/** The simulator with the `web` Deployment at `replicas`, a client for it, a virtual clock and a config whose one push target is `web`. */
async function startWeb(replicas: number, targetPerReplica: number) {
  const sim = await startKubernetesSim();
  kube = sim;
  sim.add(WEB, { replicas });
  const kc = new KubeConfig();
  kc.loadFromOptions(sim.kubeconfigOptions());
  const configFile = writeConfig({
    storage: azuriteStorage(),
    kubernetes: { kubeconfig: '/nonexistent' },
    targets: [{ name: 'web', policy: 'knative', scaleTargetRef: { kind: 'Deployment', name: 'web' }, minScale: 1, load: { source: 'push', targetPerReplica } }],
  });
  return { kube: sim, real: new KubernetesScaleTargets(kc), clock: new ManualClock(Date.now()), configFile };
}

describe('two holders of one target', () => {
  it('the second holder’s scale stands; the stale holder’s patch is refused and it writes nothing', async () => {
    const { kube, real, clock, configFile } = await startWeb(8, 10);

    // The first holder's patch is held back until the second holder has done its whole reconcile.
    let second: (() => Promise<void>) | undefined;
    const stalled: ScaleTargetApi = {
      readScale: (ref) => real.readScale(ref),
      patchScale: async (ref, replicas, precondition) => {
        await second?.();
        return real.patchScale(ref, replicas, precondition);
      },
    };
    const first = await createRuntime({ configFile, clock, serviceClock: simulatedService(clock), adapters: { scaleTargets: stalled } });
    const other = await createRuntime({ configFile, clock, serviceClock: simulatedService(clock), adapters: { scaleTargets: real } });
    await first.storage.ensure();

    // Adopted at 8 (nothing written), then the first holder acts on a push of 0: 8 → 4.
    await reconcileObject(other, web, { reason: 'timer' }, { log: silentLog });
    const adopted = await readTargetRecord(other.table('targets'), 'web');
    let secondOutcome: Awaited<ReturnType<typeof reconcileObject>> | undefined;
    second = async () => {
      second = undefined;
      // The lease ran out, and so did the default 60 s stable window (longer than the 15 s
      // lease): the first holder's push of 0 no longer counts in the average.
      clock.advance(Math.max(LEASE_TTL_MS, STABLE_WINDOW_MS) + 1_000);
      // The second holder takes the lease and scales to 10 for a push of 100.
      secondOutcome = await pushThenReconcile(other, web, 100, { reason: 'forced' }, { log: silentLog });
    };
    const firstOutcome = await pushThenReconcile(first, web, 0, { reason: 'forced' }, { log: silentLog });

    expect(secondOutcome).toMatchObject({ status: 'done', decision: { decision: 'scaled 8 → 10' } });
    expect(kube.inspect(WEB)?.specReplicas).toBe(10);
    const patches = kube.requests.filter((r) => r.op === 'patchScale');
    expect(patches.map((r) => r.status)).toEqual([200, 422]);
    // The first holder stopped at its next lease check: its conflict is not recorded over the second's row.
    expect(firstOutcome).toMatchObject({ status: 'done', decision: { decision: 'stopped' } });
    const record = await readTargetRecord(other.table('targets'), 'web');
    expect(record).toMatchObject({ requestedScale: 10, revision: (adopted?.revision ?? 0) + 1 });
    expect(record?.lastError).toBeUndefined();
    expect((await readSamples(other.table('samples'), 'web')).samples.at(-1)?.value).toBe(100);
  });

  it('a reconcile never writes the row over a revision it did not read', async () => {
    const { real, clock, configFile } = await startWeb(2, 1);
    // While the first reconcile reads the target, another one writes the row (and bypasses the lease, as a stale holder would).
    let interloper: (() => Promise<void>) | undefined;
    const sneaky: ScaleTargetApi = {
      readScale: async (ref) => {
        const read = await real.readScale(ref);
        await interloper?.();
        return read;
      },
      patchScale: (ref, replicas, precondition) => real.patchScale(ref, replicas, precondition),
    };
    const rt = await createRuntime({ configFile, clock, serviceClock: simulatedService(clock), adapters: { scaleTargets: sneaky } });
    const other = await createRuntime({ configFile, clock, serviceClock: simulatedService(clock), adapters: { scaleTargets: real } });
    await rt.storage.ensure();
    await reconcileObject(other, web, { reason: 'timer' }, { log: silentLog });
    interloper = async () => {
      interloper = undefined;
      const current = await readTargetRecord(other.table('targets'), 'web');
      await writeTargetRecord(other.table('targets'), 'web', current?.revision ?? 0, () => ({ desiredScale: 7 }));
    };
    const outcome = await pushThenReconcile(rt, web, 3, { reason: 'forced' }, { log: silentLog });
    expect(outcome).toMatchObject({ status: 'failed', decision: { error: expect.stringMatching(/written by another reconcile/) } });
    expect((await readTargetRecord(other.table('targets'), 'web'))?.desiredScale).toBe(7);
  });
});
