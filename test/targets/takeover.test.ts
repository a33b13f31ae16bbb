// Taking over running workloads: Drover's first look adopts a target as it runs and writes
// nothing; without a load sample it never lowers a target; scale to zero disabled holds 1 at 0;
// an activation timing out without a sample keeps its scale; a failed read plans from the
// stored record. The real Kubernetes client against the simulator, tables on Azurite.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { runPass } from '../../src/reconcile/pass.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { startTargetWorld, WEB, webTarget, type TargetWorld } from './support.js';
import { pushThenReconcile } from '../support/push.js';

const web = { kind: 'target', name: 'web' } as const;

let world: TargetWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function timerPasses(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await runPass(world!.rt, { log: silentLog, reason: 'timer' });
}

describe('taking over a running Deployment', () => {
  it('8 ready, minScale 1, a push source with no value yet: no patch over several passes; a push of 0 then steps 8 → 4 → 2 → 1', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator, { minScale: 1, maxScaleDownRate: 2 })]);
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 8 });

    await timerPasses(4);
    expect(kube.count('patchScale')).toBe(0);
    expect(kube.inspect(WEB)?.specReplicas).toBe(8);
    expect(await readTargetRecord(rt.table('targets'), 'web')).toMatchObject({ activeStatus: 'True', activeReason: 'AdoptedActive', requestedScale: 8, actualScale: 8 });
    const decisions = await rt.decisions.recent(Date.now(), 10);
    expect(decisions.map((d) => d.decision)).toEqual(expect.arrayContaining(['adopted', 'no metrics']));

    const steps = [kube.inspect(WEB)?.specReplicas];
    await pushThenReconcile(rt, web, 0, { reason: 'forced' }, { log: silentLog });
    steps.push(kube.inspect(WEB)?.specReplicas);
    for (let i = 0; i < 3; i++) {
      await reconcileObject(rt, web, { reason: 'timer' }, { log: silentLog });
      steps.push(kube.inspect(WEB)?.specReplicas);
    }
    expect(steps).toEqual([8, 4, 2, 1, 1]);
    expect(kube.count('patchScale')).toBe(3);
  });

  it('a maxScale below the running scale does not lower it without a sample', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator, { minScale: 1, maxScale: 3 })]);
    const { kube } = world;
    kube.add(WEB, { replicas: 8 });
    await timerPasses(3);
    expect(kube.count('patchScale')).toBe(0);
  });
});

describe('scale to zero disabled', () => {
  it('a target found at 0 is adopted as it is and goes to 1 once a push of 0 arrives, and stays there', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator, { scaleToZero: { enabled: false, stableWindow: '1500ms', gracePeriod: '1s' } })]);
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 0 });

    await timerPasses(1);
    expect(kube.inspect(WEB)?.specReplicas).toBe(0);
    expect(await readTargetRecord(rt.table('targets'), 'web')).toMatchObject({ activeStatus: 'False', activeReason: 'AdoptedAtZero' });

    await pushThenReconcile(rt, web, 0, { reason: 'forced' }, { log: silentLog });
    expect(kube.inspect(WEB)?.specReplicas).toBe(1);
    await timerPasses(2);
    expect(kube.inspect(WEB)?.specReplicas).toBe(1);
  });
});

describe('an activation that times out', () => {
  it('keeps its scale while no sample exists, and goes to zero (Knative) once one does', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator, { activationTimeout: '300ms' })], { readyDelayMs: 600_000 });
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 2, readyReplicas: 0 });

    await timerPasses(1);
    expect(await readTargetRecord(rt.table('targets'), 'web')).toMatchObject({ activeStatus: 'Unknown', activeReason: 'AdoptedActivating' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await timerPasses(2);
    expect(kube.count('patchScale')).toBe(0);
    expect(kube.inspect(WEB)?.specReplicas).toBe(2);
    const decisions = await rt.decisions.recent(Date.now(), 10);
    expect(decisions[0]).toMatchObject({ decision: 'no metrics', reason: expect.stringMatching(/activation timed out without a load sample/) });

    await pushThenReconcile(rt, web, 0, { reason: 'forced' }, { log: silentLog });
    expect(kube.inspect(WEB)?.specReplicas).toBe(0);
    expect(await readTargetRecord(rt.table('targets'), 'web')).toMatchObject({ activeStatus: 'False', activeReason: 'TimedOut' });
  });
});

describe('a failed read of the target', () => {
  it('of a target never seen: only the error is recorded', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator)]);
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 3 });
    kube.failNext('get', 500, 'etcd is on fire');
    const outcome = await reconcileObject(rt, web, { reason: 'timer' }, { log: silentLog });
    expect(outcome).toMatchObject({ status: 'failed', decision: { decision: 'target unreadable', transient: true } });
    const record = await readTargetRecord(rt.table('targets'), 'web');
    expect(record).toMatchObject({ lastError: expect.stringMatching(/etcd is on fire/) });
    expect(record?.activeStatus).toBeUndefined();
    expect((await rt.storage.queue('reconcile').getProperties()).approximateMessagesCount).toBe(0);
  });

  it('of a target seen before: planned from its stored record, the re-enqueue kept, nothing written to it', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator, { scaleToZero: { stableWindow: '30s', gracePeriod: '1s' } })]);
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 1 });
    await timerPasses(1);
    const pendingDue = async () => (await rt.queues.markers!.read({ kind: 'target', name: 'web' }))?.pending.dueAt;
    // The timer pass's own follow-ups are served first, so the marker shows only what the failed pass asks.
    await rt.queues.markers!.consume((await rt.queues.markers!.read({ kind: 'target', name: 'web' }))!);
    expect(await pendingDue()).toBeUndefined();

    kube.failNext('get', 500, 'etcd is on fire');
    const outcome = await pushThenReconcile(rt, web, 0, { reason: 'forced' }, { log: silentLog });
    expect(outcome).toMatchObject({ status: 'failed', decision: { decision: 'target unreadable', reason: expect.stringMatching(/held at 1 until the stable window/) } });
    expect(kube.count('patchScale')).toBe(0);
    // The stable window's wait is asked for as if the read had worked (one pending reconcile, by its end).
    // At most the 30 s window away: plus the queue's whole-second rounding and the storage clock's
    // whole-second Date header, through which the marker's times are read back.
    expect(await pendingDue()).toBeLessThanOrEqual(rt.clock.now() + 30_000 + 2_000);
    expect(await readTargetRecord(rt.table('targets'), 'web')).toMatchObject({
      activeStatus: 'True',
      requestedScale: 1,
      actualScale: 1,
      lastError: expect.stringMatching(/etcd is on fire/),
    });
  });
});
