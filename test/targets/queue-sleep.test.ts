// Queue-driven targets sleep and wake without an activator (issue 23, KEDA's activation and
// cooldown): a Deployment on the Kubernetes simulator and a pool on the ARM simulator, each
// sized from a real Azurite queue, go 0 → up when the queue holds messages and back to 0 once
// the cooldown has passed since the queue was last seen busy, stepping down (never N → 0 in one
// write). A clock of the test's own moves a second a pass; the cooldown is 5 s.
import { randomBytes } from 'node:crypto';
import { QueueClient } from '@azure/storage-queue';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createComputeScaleSetApi } from '../../src/azure/compute-adapter.js';
import type { KubernetesScaleTargetRef } from '../../src/kubernetes/scale-target-ref.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { armWorld, type ArmWorld } from '../support/arm.js';
import { closeWorldAndServer, startTargetWorld, type TargetWorld } from './support.js';
import { rmSync } from 'node:fs';

const WORKER: KubernetesScaleTargetRef = { kind: 'Deployment', namespace: 'default', name: 'worker' };
const COOLDOWN_MS = 5_000;
const POOL_COOLDOWN_MS = 3_000;

let world: TargetWorld | undefined;
let arm: ArmWorld | undefined;
afterEach(async () => {
  await closeWorldAndServer(world, undefined);
  if (arm) {
    await arm.sim.close();
    rmSync(arm.dir, { recursive: true, force: true });
  }
  world = undefined;
  arm = undefined;
});

async function jobsQueue() {
  const connection = inject('azuriteConnection');
  const queue = new QueueClient(connection, `jobs${randomBytes(4).toString('hex')}`);
  await queue.create();
  return { queue, connection };
}

/** A queue worker's target: no activator, a short cooldown, one replica per message. */
function workerTarget(name: string, scaleTargetRef: Record<string, unknown>, queue: { queueName: string; connection: string }, cooldownMs = COOLDOWN_MS) {
  return {
    name,
    scaleTargetRef,
    policy: 'knative',
    scaleToZero: { stableWindow: '1500ms' },
    activationWatch: '0s',
    cooldown: `${cooldownMs}ms`,
    load: { source: 'queue', ...queue, targetPerReplica: 1, pollInterval: '2s' },
  };
}

/**
 * Runs `passes` one second apart; `scale()` is read after each. Returns the scale after every
 * pass, with the time since start.
 */
async function drive(rt: Runtime, clock: ManualClock, passes: number, scale: () => number, extra: () => Promise<void> = async () => {}) {
  const seen: { at: number; scale: number }[] = [];
  const start = clock.now();
  for (let i = 0; i < passes; i++) {
    const outcome = await reconcileObject(rt, { kind: 'target', name: rt.config.targets[0]!.name }, { reason: 'poll the load source' }, { log: silentLog });
    expect(outcome.status).toBe('done');
    await extra();
    seen.push({ at: clock.now() - start, scale: scale() });
    clock.advance(1_000);
  }
  return seen;
}

/** Each change of scale, in order, starting with the first. */
const changes = (seen: { scale: number }[]) => seen.map((s) => s.scale).filter((s, i, all) => i === 0 || s !== all[i - 1]);

/** The queue's messages are all taken, as the workers would. */
async function drain(queue: QueueClient) {
  await queue.clearMessages();
}

describe('a queue-driven target without an activator', () => {
  it('Deployment: wakes 0 → up for queued messages, and after the cooldown steps down to 1 and then 0', async () => {
    const { queue, connection } = await jobsQueue();
    const clock = new ManualClock(Date.now());
    world = await startTargetWorld(() => [workerTarget('worker', { kind: 'Deployment', name: 'worker' }, { queueName: queue.name, connection })], { clock });
    const { kube, rt } = world;
    kube.add(WORKER, { replicas: 0 });
    const scale = () => kube.inspect(WORKER)?.specReplicas ?? -1;

    // Adopted at zero with an empty queue: it stays there, past the cooldown too.
    const idle = await drive(rt, clock, 7, scale);
    expect(changes(idle)).toEqual([0]);
    expect((await readTargetRecord(rt.table('targets'), 'worker'))?.boundBy).toBeUndefined();

    // Four jobs: woken on the first pass that sees them, then sized to them.
    for (let i = 0; i < 4; i++) await queue.sendMessage(`job ${i}`);
    const busy = await drive(rt, clock, 3, scale);
    expect(busy[0]!.scale).toBeGreaterThanOrEqual(1);
    expect(busy.at(-1)!.scale).toBe(4);

    // Drained: down through the rate limits to 1, held there until the cooldown since the last
    // busy reading has passed, then 0.
    const lastBusy = clock.now() - 1_000;
    await drain(queue);
    const down = await drive(rt, clock, 10, scale);
    expect(changes([busy.at(-1)!, ...down])).toEqual([4, 2, 1, 0]);
    const zeroAt = clock.now() - 10_000 + down.find((s) => s.scale === 0)!.at;
    expect(zeroAt - lastBusy).toBeGreaterThan(COOLDOWN_MS);
    expect(zeroAt - lastBusy).toBeLessThanOrEqual(COOLDOWN_MS + 2_000);
    // Held at 1 by the cooldown on the way, as the decision log says.
    const decisions = await rt.decisions.recent(clock.now(), 100);
    expect(decisions.some((d) => d.object === 'target/worker' && d.boundBy === 'CooldownPending' && d.decision === 'waiting to scale to zero')).toBe(true);

    // And woken again by a new job.
    await queue.sendMessage('late job');
    const again = await drive(rt, clock, 1, scale);
    expect(again[0]!.scale).toBe(1);
    await queue.delete();
  });

  // A pool pass a step, so a shorter cooldown (3 s) keeps it brief.
  it('Pool: the same, in VMs, through the pool', { timeout: 60_000 }, async () => {
    const { queue, connection } = await jobsQueue();
    const clock = new ManualClock(Date.now());
    arm = await armWorld({ clock, provisionDelayMs: 0, deleteDelayMs: 0 });
    arm.sim.addScaleSet({ resourceGroup: 'rg-jobs', name: 'vmss-jobs', capacity: 4 });
    const scaleSetApi = await createComputeScaleSetApi(arm.azure, { clock, lroWaitMs: 0 });
    const pool = { name: 'jobs-pool', scaleSet: { resourceGroup: 'rg-jobs', name: 'vmss-jobs' }, maxCount: 4, chunkSize: 10, reconcileRate: '0s,1', creationRate: '0s,1', deletionRate: '0s,1', instanceCache: { ttl: '0s' } };
    const rt = await arm.runtime({ pools: [pool], targets: [workerTarget('jobs', { kind: 'Pool', name: 'jobs-pool' }, { queueName: queue.name, connection }, POOL_COOLDOWN_MS)] }, { clock, adapters: { scaleSetApi } });
    const live = () => arm!.sim.scaleSet('rg-jobs', 'vmss-jobs').vms().filter((v) => v.provisioningState !== 'Deleting').length;
    const poolPass = async () => {
      expect((await reconcileObject(rt, { kind: 'pool', name: 'jobs-pool' }, { reason: 'tick' }, { log: silentLog })).status).toBe('done');
    };
    // A running pool of 4, taken over: it holds (no fill to maxCount, no scale-in) until the
    // target has sized it, and the target adopts it as it runs.
    await poolPass();
    await poolPass();
    expect(live()).toBe(4);

    // An empty queue: down through the rate limits, and to zero a cooldown after adoption.
    const idle = await drive(rt, clock, 5, live, poolPass);
    expect(changes(idle)).toEqual([4, 2, 1, 0]);
    const zeroAfter = idle.find((s) => s.scale === 0)!.at;
    expect(zeroAfter).toBeGreaterThan(POOL_COOLDOWN_MS);

    // Three jobs: woken on the first pass that sees them, then sized to them.
    for (let i = 0; i < 3; i++) await queue.sendMessage(`job ${i}`);
    const busy = await drive(rt, clock, 3, live, poolPass);
    expect(busy[0]!.scale).toBeGreaterThanOrEqual(1);
    expect(busy.at(-1)!.scale).toBe(3);

    // Drained: 3 → 2 → 1 (the stable window averages the last busy reading in), held by the
    // cooldown, then 0.
    await drain(queue);
    const down = await drive(rt, clock, 5, live, poolPass);
    expect(changes([busy.at(-1)!, ...down])).toEqual([3, 2, 1, 0]);
    expect(down.find((s) => s.scale === 0)!.at).toBeGreaterThan(POOL_COOLDOWN_MS - 1_000);
    expect(await readTargetRecord(rt.table('targets'), 'jobs')).toMatchObject({ requestedScale: 0, activeStatus: 'False' });
    await queue.delete();
  });
});
