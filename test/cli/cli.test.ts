import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { startWorld, type World } from '../support/world.js';
import { writeConfig } from '../support/config.js';
import { tableRowWriter } from '../../src/pool/row-writer.js';
import { readInventory } from '../../src/pool/inventory.js';

let file: string;
let world: World;
beforeAll(async () => {
  world = await startWorld();
  world.arm.sim.addScaleSet({ resourceGroup: 'rg', name: 'vmss', capacity: 2 });
  world.kube.add({ kind: 'Deployment', namespace: 'default', name: 'web' }, { replicas: 1 });
  file = world.configFile({
    pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' }, maxCount: 2, reconcileRate: '0s,1', creationRate: '0s,1' }],
    targets: [{ name: 'web', minScale: 1, scaleTargetRef: { kind: 'Deployment', name: 'web' } }],
  });
});
afterAll(async () => {
  await world.close();
});

async function drover(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--config', file, ...args], { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {} });
  return { code, stdout, stderr };
}

describe('drover CLI', () => {
  it('reconcile --dry-run decides without recording anything', async () => {
    const r = await drover('reconcile', '--dry-run', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { outcomes: { ref: { kind: string; name: string }; status: string }[] };
    expect(report.outcomes.map((o) => `${o.ref.kind}/${o.ref.name}:${o.status}`).sort()).toEqual(['pool/workers:done', 'target/web:done']);
    const status = JSON.parse((await drover('status', '--json')).stdout) as { decisions: unknown[]; pools: { machines: unknown[] }[] };
    expect(status.decisions).toEqual([]);
    expect(status.pools[0]!.machines).toEqual([]);
    expect(world.arm.sim.counts.updateScaleSet).toBe(0);
    expect(await (await createRuntime({ configFile: file })).history.read('pool/workers', Date.now())).toEqual([]);
    expect((JSON.parse(r.stdout) as { startedAt: unknown }).startedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('reconcile records its decisions, which status then shows', async () => {
    const r = await drover('reconcile');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/2 reconciled, 0 deferred, 0 failed/);
    const s = await drover('status', '--json');
    const status = JSON.parse(s.stdout) as { decisions: { object: string }[]; pools: { cache: { size: number }; machines: unknown[]; instances: unknown[] }[]; targets: unknown[] };
    expect(status.decisions.map((d) => d.object).sort()).toEqual(['pool/workers', 'target/web']);
    expect(status.pools[0]).toMatchObject({ cache: { size: 2 }, instances: [expect.objectContaining({ state: 'Running' }), expect.anything()] });
    expect(status.pools[0]!.machines).toHaveLength(2);
    expect((await drover('status')).stdout).toMatch(/POOLS \(1\)[\s\S]*TARGETS \(1\)[\s\S]*RECENT DECISIONS/);
  });

  it('enqueue --load pushes a value the next reconcile serves: the workload follows it', async () => {
    const r = await drover('enqueue', '--target', 'web', '--load', '25');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/(enqueued a reconcile of target\/web .*|a reconcile of target\/web .* is already pending); load 25 is pushed/);
    const rt = await createRuntime({ configFile: file });
    // At most one message for web: a push asks for a reconcile, which collapses into the pending one.
    const msgs = await rt.storage.queue('reconcile').peekMessages({ numberOfMessages: 32 });
    const bodies = msgs.peekedMessageItems.map((m) => JSON.parse(Buffer.from(m.messageText, 'base64').toString()) as Record<string, unknown>);
    expect(bodies.filter((b) => b.kind === 'target' && b.name === 'web').length).toBeLessThanOrEqual(1);
    // Whatever becomes of that message, the next pass serves the push: the Deployment goes to 25.
    expect((await drover('reconcile')).code).toBe(0);
    expect(world.kube.inspect({ kind: 'Deployment', namespace: 'default', name: 'web' })?.specReplicas).toBe(25);
    const status = JSON.parse((await drover('status', '--json')).stdout) as { targets: { name: string; sources?: unknown[] }[] };
    expect(status.targets.find((t) => t.name === 'web')?.sources).toEqual([{ name: 'load', kind: 'push', value: 25, at: expect.stringMatching(/^\d{4}-/), error: null, served: true }]);
  });

  it.each([
    { args: ['enqueue', '--target', 'nope'], why: /no target named "nope"/ },
    { args: ['enqueue', '--target', 'web', '--pool', 'workers'], why: /exactly one of/ },
    { args: ['enqueue', '--pool', 'workers', '--load', '3'], why: /targets only/ },
    { args: ['enqueue', '--target', 'web', '--delay', '5 minutes'], why: /invalid duration/ },
    { args: ['enqueue', '--target', 'web', '--delay', '200h'], why: /at most 7 days/ },
    { args: ['enqueue', '--target', 'web', '--load', 'lots'], why: /expected a decimal number/ },
    { args: ['enqueue', '--target', 'web', '--load', '0x10'], why: /^error: --load: expected a decimal number/ },
    { args: ['frobnicate'], why: /unknown command/ },
  ])('refuses $args with exit code 2', async ({ args, why }) => {
    const r = await drover(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(why);
  });

  it('machines forget removes an inventory row and says so when there is none', async () => {
    const rt = await createRuntime({ configFile: file });
    await rt.storage.ensure();
    const id = 'azure:///subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/9';
    await tableRowWriter(rt.table('machines'), 'workers').write([{ op: 'insert', key: id, props: { providerStatus: 'Running', createdAt: 1, updatedAt: 1 } }]);
    const r = await drover('machines', 'forget', '--pool', 'workers', id);
    expect(r.code).toBe(0);
    expect((await readInventory(rt.table('machines'), 'workers')).rows.map((m) => m.rowKey)).not.toContain(id);
    const again = await drover('machines', 'forget', '--pool', 'workers', id);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no inventory row/);
  });

  it('reconcile exits 1 when an object fails, saying which', async () => {
    const broken = world.configFile({
      pools: [{ name: 'ghost', scaleSet: { resourceGroup: 'rg', name: 'no-such-vmss' }, reconcileRate: '0s,1' }],
    });
    let stdout = '';
    const code = await runCli(['--config', broken, 'reconcile'], { stdout: (s) => (stdout += s), stderr: () => undefined, env: {} });
    expect(code).toBe(1);
    expect(stdout).toMatch(/pool\/ghost\s+FAILED/);
  });

  it.each([
    { name: 'an invalid DROVER_SCHEDULE', args: ['run'], env: { DROVER_SCHEDULE: 'every minute' }, why: /DROVER_SCHEDULE: invalid schedule/ },
    { name: 'no storage anywhere', args: ['status'], env: {}, why: /no storage configured/, bare: true },
    { name: 'a dev credential for a real endpoint', args: ['status'], env: {}, why: /azure\.credential: "dev" sends a static token/, dev: true },
  ])('exits 2 for $name', async ({ args, env, why, bare, dev }) => {
    const file = bare
      ? writeConfig({ pools: [] })
      : dev
        ? writeConfig({ azure: { subscriptionId: '00000000-0000-0000-0000-000000000000', credential: 'dev', resourceManagerEndpoint: 'https://management.azure.com' } })
        : world.configFile({});
    let stderr = '';
    const code = await runCli(['--config', file, ...args], { stdout: () => undefined, stderr: (s) => (stderr += s), env });
    expect(code).toBe(2);
    expect(stderr).toMatch(why);
  });
});
