/**
 * `drover machines forget` takes a machine the way Drover printed it: the short id of `status`,
 * the VM's name (as ARM and the refusals of old named it) and the full id of `status --json`;
 * a refusal names the VM as `status` does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { startWorld, type World } from '../support/world.js';

let world: World;
let file: string;

beforeAll(async () => {
  world = await startWorld();
  // ARM spells the group as it was created; Drover prints it lower-cased.
  world.arm.sim.addScaleSet({ resourceGroup: 'RG-Demo', name: 'vmss-workers', capacity: 4 });
  file = world.configFile({
    pools: [{ name: 'workers', scaleSet: { resourceGroup: 'RG-Demo', name: 'vmss-workers' }, maxCount: 4, reconcileRate: '0s,1', creationRate: '0s,1' }],
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

const inventory = async () => {
  const status = JSON.parse((await drover('status', '--json')).stdout) as { pools: { machines: { providerId: string }[] }[] };
  return status.pools[0]!.machines.map((m) => m.providerId);
};

describe('machines forget, by every id Drover prints', () => {
  let printed: string[];
  let full: string[];

  beforeAll(async () => {
    expect((await drover('reconcile')).code).toBe(0);
    full = await inventory();
    const text = (await drover('status')).stdout;
    printed = [...text.matchAll(/^ {4}Running +(\S+)$/gm)].map((m) => m[1]!);
  });

  it('status prints short ids of the adopted machines', () => {
    expect(full).toHaveLength(4);
    expect(printed).toContain('rg-demo/vmss-workers/0');
  });

  it('refuses a running VM, naming it as status does', async () => {
    const r = await drover('machines', 'forget', '--pool', 'workers', 'rg-demo/vmss-workers/0');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('ARM lists rg-demo/vmss-workers/0 as running: forgetting it would leave a VM nobody manages (--force to forget it anyway)\n');
    expect(await inventory()).toHaveLength(4);
  });

  it.each([
    { form: 'the short id status prints', instance: '0', id: () => 'rg-demo/vmss-workers/0' },
    { form: "the VM's name", instance: '1', id: () => 'vmss-workers_1' },
    { form: 'the full id of status --json', instance: '2', id: () => full.find((f) => f.endsWith('/virtualMachines/2'))! },
  ])('forgets a gone VM named by $form', async ({ instance, id }) => {
    world.arm.sim.scaleSet('RG-Demo', 'vmss-workers').removeVm(instance);
    const r = await drover('machines', 'forget', '--pool', 'workers', id());
    expect(r).toMatchObject({ code: 0, stdout: `removed rg-demo/vmss-workers/${instance} from the inventory of pool workers\n` });
    expect((await inventory()).some((m) => m.endsWith(`/virtualMachines/${instance}`))).toBe(false);
  });

  it('says which machine has no row, by the name status gives it', async () => {
    const r = await drover('machines', 'forget', '--pool', 'workers', 'vmss-workers_0');
    expect(r).toMatchObject({ code: 1, stderr: 'pool workers has no inventory row for vmss-workers_0\n' });
    expect(await inventory()).toHaveLength(1);
  });
});
