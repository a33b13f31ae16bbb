// drover pause / resume across hosts: the pause is written to the target's row by the command
// line (under the target's lease), and a second host, with a runtime of its own on the same
// storage, obeys it at its next reconcile; resume lifts it, and the load is followed again.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCli } from '../../src/cli.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { targetStatus } from '../../src/status/target-status.js';
import { startTargetWorld, WEB, webTarget, type TargetWorld } from './support.js';
import { pushThenReconcile } from '../support/push.js';

let world: TargetWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function drover(configFile: string, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--config', configFile, ...args], { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {} });
  return { code, stdout, stderr };
}

describe('drover pause', () => {
  it('pins a target at --replicas on a second host at its next reconcile, and resume undoes it', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator, { scaleToZero: { enabled: false } })]);
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 1 });
    const second = await createRuntime({ configFile: rt.configFile, env: {} });
    const reconcileOn = (host: typeof rt, load?: number) =>
      load !== undefined ? pushThenReconcile(host, { kind: 'target', name: 'web' }, load, { reason: 'test' }, { log: silentLog }) : reconcileObject(host, { kind: 'target', name: 'web' }, { reason: 'test' }, { log: silentLog });
    await reconcileOn(second, 10); // adopted
    await reconcileOn(second, 10);
    expect(kube.inspect(WEB)?.specReplicas).toBe(1);

    const paused = await drover(rt.configFile, 'pause', 'web', '--replicas', '3');
    expect(paused.code, paused.stderr).toBe(0);
    // The second host's next reconcile brings a load of 10 (1 replica): the pause holds it at 3.
    const outcome = await reconcileOn(second, 10);
    expect(outcome).toMatchObject({ status: 'done', decision: { boundBy: 'Paused' } });
    expect(kube.inspect(WEB)?.specReplicas).toBe(3);
    await reconcileOn(second, 60);
    expect(kube.inspect(WEB)?.specReplicas).toBe(3);
    expect(await targetStatus(second, second.config.targets[0]!)).toMatchObject({ boundBy: 'Paused', paused: { mode: 'all', replicas: 3, by: 'drover pause' } });

    const resumed = await drover(rt.configFile, 'resume', 'web');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await readTargetRecord(rt.table('targets'), 'web'))?.pausedMode).toBeUndefined();
    await reconcileOn(second, 60);
    // Unpinned: the load (60 on top of the window's earlier 10s) takes it above 3.
    expect(kube.inspect(WEB)?.specReplicas).toBeGreaterThan(3);
    expect((await targetStatus(second, second.config.targets[0]!)).paused).toBeUndefined();
  }, 30_000);

  it('--scale-in holds the target where it is against a falling load, and lets it rise', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator, { scaleToZero: { enabled: false } })]);
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 4 });
    const reconcile = (load: number) => pushThenReconcile(rt, { kind: 'target', name: 'web' }, load, { reason: 'test' }, { log: silentLog });
    await reconcile(40); // adopted
    expect((await drover(rt.configFile, 'pause', 'web', '--scale-in')).code).toBe(0);
    await reconcile(10);
    expect(kube.inspect(WEB)?.specReplicas).toBe(4);
    await reconcile(80);
    expect(kube.inspect(WEB)?.specReplicas).toBeGreaterThan(4);
  }, 30_000);

  it('refuses a direction with --replicas, and an unknown target, with exit code 2', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator)]);
    expect((await drover(world.rt.configFile, 'pause', 'web', '--replicas', '2', '--scale-in')).code).toBe(2);
    expect((await drover(world.rt.configFile, 'pause', 'nope')).code).toBe(2);
  }, 30_000);
});

/** The world's configuration file again, with the target paused by `paused: true`. */
function pausedByConfig(configFile: string): string {
  const doc = parse(readFileSync(configFile, 'utf8')) as { targets: Record<string, unknown>[] };
  doc.targets[0]!.paused = true;
  const file = path.join(path.dirname(configFile), 'paused.yaml');
  writeFileSync(file, stringify(doc));
  return file;
}

describe('drover pause on a target whose configuration says paused: true', () => {
  it('refuses --replicas and a direction with exit 2, writing nothing, and resume leaves no pin behind', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator, { scaleToZero: { enabled: false }, paused: true })]);
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 2 });
    const reconcile = (load: number) => pushThenReconcile(rt, { kind: 'target', name: 'web' }, load, { reason: 'test' }, { log: silentLog });
    await reconcile(10);

    const pinned = await drover(rt.configFile, 'pause', 'web', '--replicas', '9');
    expect([pinned.code, pinned.stdout]).toEqual([2, '']);
    expect(pinned.stderr).toMatch(/target web is paused by its configuration \(paused: true\), which writes no scale: --replicas 9 is not recorded/);
    const outward = await drover(rt.configFile, 'pause', 'web', '--scale-out');
    expect(outward.code).toBe(2);
    expect(outward.stderr).toMatch(/--scale-out is not recorded/);
    expect((await readTargetRecord(rt.table('targets'), 'web'))?.pausedMode).toBeUndefined();
    await reconcile(10);
    expect(kube.inspect(WEB)?.specReplicas).toBe(2);

    const resumed = await drover(rt.configFile, 'resume', 'web');
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/stays paused: the configuration says paused: true/);
    await reconcile(80);
    expect(kube.inspect(WEB)?.specReplicas).toBe(2);
    expect(await targetStatus(rt, rt.config.targets[0]!)).toMatchObject({ boundBy: 'Paused', paused: { by: 'configuration', replicas: null } });
  }, 30_000);

  it('a pin recorded before the configuration said paused: true is not written while it says so', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator, { scaleToZero: { enabled: false } })]);
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 2 });
    expect((await drover(rt.configFile, 'pause', 'web', '--replicas', '9')).code).toBe(0);
    // The configuration is then changed to paused: true; a host that reads it writes nothing.
    const host = await createRuntime({ configFile: pausedByConfig(rt.configFile), env: {} });
    const reconcile = (load: number) => pushThenReconcile(host, { kind: 'target', name: 'web' }, load, { reason: 'test' }, { log: silentLog });
    await reconcile(10);
    await reconcile(10);
    expect(kube.inspect(WEB)?.specReplicas).toBe(2);
    expect(await targetStatus(host, host.config.targets[0]!)).toMatchObject({ boundBy: 'Paused', paused: { by: 'configuration' } });
  }, 30_000);
});
