// Issue 22, one configuration at a time: two hosts on one storage account whose configurations
// differ, as during a rolling deploy. On Azurite and the Kubernetes simulator, with the real
// handlers: the newer configuration wins every object (no flapping), and a message for a target
// only the newer configuration has is put back for it instead of deleted.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { onReconcileMessage, PUT_BACK_MS } from '../../src/handlers/reconcile-queue.js';
import { onReconcileTimer } from '../../src/handlers/reconcile-timer.js';
import { newInvocationContext, logHandlerFor } from '../../src/host/invocation.js';
import { silentLog, type Log } from '../../src/log.js';
import { encodeMessage } from '../../src/queue/messages.js';
import { CONFIG_PARTITION, NEWEST_LIVE_MS, NEWEST_ROW } from '../../src/queue/newest-config.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { simulatedService } from '../../src/state/service-clock.js';
import { targetStatus } from '../../src/status/target-status.js';
import { ManualClock } from '../../src/clock.js';
import { writeConfig } from '../support/config.js';
import { eventually, startTargetWorld, WEB, type TargetWorld } from '../targets/support.js';
import { pushThenReconcile } from '../support/push.js';
import { pushLoad } from '../../src/queue/push.js';

const API = { kind: 'Deployment' as const, namespace: 'default', name: 'api' };
const NEWER = 2_000_000;
const OLDER = 1_000_000;

let world: TargetWorld | undefined;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await world?.close();
  world = undefined;
});

const target = (name: string, maxScale: number) => ({ name, maxScale, minScale: 1, scaleTargetRef: { kind: 'Deployment', name }, load: { source: 'push', targetPerReplica: 10 } });

/** A second host on the first one's storage, with a configuration of its own (beside the first's, so its kubeconfig resolves). */
async function hostOn(first: Runtime, targets: Record<string, unknown>[], configSeq: number, options: { clock?: ManualClock } = {}): Promise<Runtime> {
  const file = writeConfig({ storage: { connection: first.config.storage!.connection, prefix: first.storage.prefix }, kubernetes: { kubeconfig: first.config.kubernetes!.kubeconfig }, targets }, path.dirname(first.configFile), `seq-${configSeq}.yaml`);
  const clock = options.clock;
  return createRuntime({ configFile: file, env: {}, configSeq, ...(clock ? { clock, serviceClock: simulatedService(clock) } : {}) });
}

const reconcileOn = (rt: Runtime, name: string, load: number) => pushThenReconcile(rt, { kind: 'target', name }, load, { reason: 'push' }, { log: silentLog });

function capture(): { log: Log; lines: string[] } {
  const lines: string[] = [];
  const push = (...a: unknown[]) => lines.push(a.map(String).join(' '));
  return { lines, log: { debug: push, info: push, warn: push, error: push } };
}

/** One delivery of `message` to the reconcile queue's handler on `rt`, as the queue trigger makes it. */
async function deliver(rt: Runtime, message: object, log: Log) {
  const context = newInvocationContext('reconcileQueue', { id: 'm-1', dequeueCount: 1 }, logHandlerFor('reconcileQueue', log));
  return onReconcileMessage(rt, encodeMessage(message), context);
}

const queued = async (rt: Runtime) => (await rt.storage.queue('reconcile').getProperties()).approximateMessagesCount ?? 0;

describe('a rolling deploy: two configurations on one storage account', () => {
  it('leaves every object to the newer one: maxScale 10 wins over 3, with no flapping and no write from the older host', async () => {
    world = await startTargetWorld(() => [target('web', 10)]);
    const newer = await createRuntime({ configFile: world.rt.configFile, env: {}, configSeq: NEWER });
    const older = await hostOn(newer, [target('web', 3)], OLDER);
    world.kube.add(WEB, { replicas: 1 });
    // What the new instances' first timer pass or queue message does.
    await newer.configuration.newest.announce();
    // The old deployment was there first: it adopted web, then sized it by its own configuration.
    await reconcileOn(older, 'web', 80);
    await reconcileOn(older, 'web', 80);
    expect(world.kube.inspect(WEB)?.specReplicas).toBe(3);
    world.kube.resetCounters();

    // Both serve pushes of 80 (8 replicas at 10 a replica), taking turns, as two instances would.
    const left = [];
    for (let round = 0; round < 10; round++) {
      await reconcileOn(newer, 'web', 80);
      const before = await readTargetRecord(newer.table('targets'), 'web');
      left.push(await reconcileOn(older, 'web', 80));
      // Not a field of the row changes under the older host: revision and stamp stay the newer one's.
      expect(await readTargetRecord(newer.table('targets'), 'web')).toEqual(before);
    }
    expect(world.kube.inspect(WEB)?.specReplicas).toBe(8);
    // One scale write in 20 reconciles, the newer host's: without the stamps, 3 and 8 took turns.
    expect(world.kube.count('patchScale')).toBe(1);
    for (const outcome of left) expect(outcome).toMatchObject({ status: 'done', decision: { decision: 'left to a newer configuration' } });
    expect((await readTargetRecord(newer.table('targets'), 'web'))?.configSeq).toBe(NEWER);
    // Each host's status says whose the object is; the decision log has nothing from the older host.
    expect((await targetStatus(older, older.config.targets[0]!)).leftAlone).toBe(`left to a newer configuration (seq ${NEWER})`);
    expect((await targetStatus(newer, newer.config.targets[0]!)).leftAlone).toBeUndefined();
    const decisions = await newer.decisions.recent(Date.now(), 100);
    expect(decisions.filter((d) => d.decision === 'left to a newer configuration')).toEqual([]);

    // A one-shot run with a configuration newer still (a command line that announces nothing)
    // stamps web, but runs nowhere: the deployed host is not left out by it, and takes web back.
    const oneShot = await hostOn(newer, [target('web', 10)], NEWER + 1);
    await reconcileOn(oneShot, 'web', 80);
    expect((await readTargetRecord(newer.table('targets'), 'web'))?.configSeq).toBe(NEWER + 1);
    expect((await targetStatus(newer, newer.config.targets[0]!)).leftAlone).toBeUndefined();
    expect((await reconcileOn(newer, 'web', 80)).status).toBe('done');
    expect((await readTargetRecord(newer.table('targets'), 'web'))?.configSeq).toBe(NEWER);
  }, 60_000);

  it('a host without a newly added target puts its messages back while the newer configuration runs, and the newer host serves them', async () => {
    world = await startTargetWorld(() => [target('web', 10), target('api', 10)]);
    const newer = await createRuntime({ configFile: world.rt.configFile, env: {}, configSeq: NEWER });
    const older = await hostOn(newer, [target('web', 10)], OLDER);
    world.kube.add(API, { replicas: 1 });
    await newer.configuration.newest.announce();
    // An old instance's queue worker gets the push for api, which its configuration lacks.
    const olderLog = capture();
    const hostJsonFile = path.join(path.dirname(newer.configFile), 'host.json');
    const { startLocalHost } = await import('../../src/host/local-host.js');
    const far = new Date(Date.now() + 12 * 3_600_000);
    const oldHost = await startLocalHost({ rt: older, log: olderLog.log, schedule: `0 ${far.getMinutes()} ${far.getHours()} * * *`, hostJsonFile });
    stops.push(() => oldHost.stop());
    await pushLoad({ pushes: newer.stores.pushes, queues: newer.queues }, 'api', 25, 'push');
    expect(await eventually(() => olderLog.lines.some((l) => /target\/api: not in this host's configuration .*put back/.test(l)), 10_000)).toBe(true);
    // Put back, not deleted: the message waits in the queue, and api was not touched.
    expect(await eventually(async () => (await queued(older)) === 1, 5_000)).toBe(true);
    expect(world.kube.inspect(API)?.specReplicas).toBe(1);
    await oldHost.stop();
    stops.pop();

    // The new instance's worker gets it once it is visible again, and sizes api (25 at 10 a replica).
    const newHost = await startLocalHost({ rt: newer, log: silentLog, schedule: `0 ${far.getMinutes()} ${far.getHours()} * * *`, hostJsonFile });
    stops.push(() => newHost.stop());
    expect(await eventually(() => world!.kube.inspect(API)?.specReplicas === 3, PUT_BACK_MS + 10_000)).toBe(true);
    expect(await eventually(async () => (await queued(newer)) === 0, 10_000)).toBe(true);
  }, 60_000);

  it('drops a message for an unknown object with a line once no newer configuration runs: none announced, or its row gone stale', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 12));
    world = await startTargetWorld(() => [target('web', 10)], { clock });
    const older = world.rt;
    const newer = await hostOn(older, [target('web', 10), target('api', 10)], older.configuration.seq + 1, { clock });
    const message = { kind: 'target', name: 'api', reason: 'push', load: 25 };

    const none = capture();
    expect(await deliver(older, message, none.log)).toMatchObject({ status: 'unknown' });
    expect(none.lines.join('\n')).toMatch(/dropping message m-1 for target\/api: not in this host's configuration \(seq \d+\), and no newer configuration runs/);
    expect(await queued(older)).toBe(0);

    await newer.configuration.newest.announce();
    // The older host read the row a moment ago: it looks again after a few seconds.
    clock.advance(6_000);
    const live = capture();
    await deliver(older, message, live.log);
    expect(live.lines.join('\n')).toMatch(/put back/);
    expect(await queued(older)).toBe(1);
    await older.storage.queue('reconcile').clearMessages();

    // The newer deployment was given up: nobody renews its row, and after a while it counts for nothing.
    clock.advance(NEWEST_LIVE_MS + 1_000);
    const stale = capture();
    await deliver(older, message, stale.log);
    expect(stale.lines.join('\n')).toMatch(/dropping message m-1 for target\/api/);
    expect(await queued(older)).toBe(0);
    const row = await older.table('leases').get(CONFIG_PARTITION, NEWEST_ROW);
    expect(row?.props.seq).toBe(newer.configuration.seq);
  }, 60_000);

  it('two different configurations with the same sequence: after both first passes, every write comes from the one with the higher hash', async () => {
    // Written in the same millisecond: equal sequences, maxScale 10 against 3, and no scale-down
    // window (so that a loser's write would show at once).
    const quick = { behavior: { scaleDown: { stabilizationWindow: '0s' } } };
    world = await startTargetWorld(() => [{ ...target('web', 10), ...quick }]);
    const a = await createRuntime({ configFile: world.rt.configFile, env: {}, configSeq: NEWER });
    const b = await hostOn(a, [{ ...target('web', 3), ...quick }], NEWER);
    expect(a.configuration.hash).not.toBe(b.configuration.hash);
    const [winner, loser] = a.configuration.hash > b.configuration.hash ? [a, b] : [b, a];
    world.kube.add(WEB, { replicas: 1 });

    // Each host's first pass, the loser's first (the order that leaves it a write to undo).
    await loser.configuration.newest.announce();
    await reconcileOn(loser, 'web', 80);
    await winner.configuration.newest.announce();
    await reconcileOn(winner, 'web', 80);
    expect(world.kube.inspect(WEB)?.specReplicas).toBe(Math.min(8, winner.config.targets[0]!.maxScale));

    // From here the two take turns on pushes whose sizes differ: the loser writes nothing at all.
    const sizes = [];
    for (const load of [50, 90, 20, 70, 40]) {
      await reconcileOn(winner, 'web', load);
      const before = { row: await readTargetRecord(winner.table('targets'), 'web'), replicas: world.kube.inspect(WEB)?.specReplicas, patches: world.kube.count('patchScale') };
      sizes.push(before.replicas);
      const left = await reconcileOn(loser, 'web', load);
      expect(left).toMatchObject({ status: 'done', decision: { decision: 'left to another configuration' } });
      expect({ row: await readTargetRecord(winner.table('targets'), 'web'), replicas: world.kube.inspect(WEB)?.specReplicas, patches: world.kube.count('patchScale') }).toEqual(before);
    }
    // The winner's own sizes, which never pass its maxScale.
    for (const size of sizes) expect(size).toBeLessThanOrEqual(winner.config.targets[0]!.maxScale);
    expect((await readTargetRecord(winner.table('targets'), 'web'))?.configHash).toBe(winner.configuration.hash);
    const named = `left to configuration ${winner.configuration.hash.slice(0, 8)} (same sequence ${NEWER})`;
    expect((await targetStatus(loser, loser.config.targets[0]!)).leftAlone).toBe(named);
    expect((await targetStatus(winner, winner.config.targets[0]!)).leftAlone).toBeUndefined();

    // The loser's timer pass writes nothing and says so in one warning (the object's own line is a debug one).
    const warnings: string[] = [];
    const pass = { log: { ...silentLog, warn: (...a: unknown[]) => void warnings.push(a.map(String).join(' ')) } };
    const timer = { schedule: { adjustForDST: false }, isPastDue: false, scheduleStatus: { last: '', lastUpdated: '', next: new Date(Date.now() + 60_000).toISOString() } };
    const patches = world.kube.count('patchScale');
    await onReconcileTimer(loser, timer, newInvocationContext('reconcileTimer', {}, logHandlerFor('reconcileTimer', pass.log)));
    expect(warnings.filter((l) => l.includes(named))).toHaveLength(1);
    expect(world.kube.count('patchScale')).toBe(patches);
  }, 60_000);
});
