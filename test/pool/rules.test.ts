/**
 * The pool's rules on Azurite and the ARM simulator, through the whole reconcile (lease, snapshot,
 * plan, executor, decision log): dry runs, routine churn, the safety switch, broken VMs, large
 * adoptions, lost races, and `machines forget`.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { systemClock, type Clock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readInventory, toInventoryRow } from '../../src/pool/inventory.js';
import { poolStatus } from '../../src/status/pool-status.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { ObjectOutcome } from '../../src/job/context.js';
import { armWorld, armWorldPerFile } from '../support/arm.js';
import { realAdapter } from './support/sized.js';
import { shortId } from '../../src/cache/ids.js';

const world = armWorldPerFile();

const RG = 'rg-rules';
const pool = (name: string, extra: object = {}) => ({
  name,
  scaleSet: { resourceGroup: RG, name },
  creationRate: '0s,1',
  reconcileRate: '0s,1',
  instanceCache: { ttl: '0s' },
  ...extra,
});
const pass = (rt: Runtime, name: string, dryRun = false) => reconcileObject(rt, { kind: 'pool', name }, { reason: 'test', dryRun }, { log: silentLog });
const rows = async (rt: Runtime, name: string) => (await readInventory(rt.table('machines'), name)).rows.map(toInventoryRow);
const settle = () => new Promise((r) => setTimeout(r, 120));
const decisionOf = (o: ObjectOutcome) => (o.status === 'done' || o.status === 'failed' ? o.decision : undefined);
const ids = (rt: Runtime, name: string) => rows(rt, name).then((r) => r.map((m) => m.providerId).sort());
const listedIds = (name: string) => world.sim.scaleSet(RG, name).vms().map((v) => `azure://${v.id.replace(RG, RG.toLowerCase())}`).sort();



/** The whole machines partition, as keys and ETags: what "nothing written" compares. */
const partition = async (rt: Runtime, name: string) =>
  // The switch's own record (and the generation its write bumps) is the one write allowed.
  (await rt.table('machines').list(name)).filter((r) => r.rowKey !== '~safety' && r.rowKey !== '~generation').map((r) => `${r.rowKey} ${r.etag}`).sort();

describe('a dry run', () => {
  it('is the plan, printed: no entity in any table, no ARM write, no message', async () => {
    const fresh = await armWorld();
    try {
      const scaleSet = fresh.sim.addScaleSet({ resourceGroup: RG, name: 'dry', vms: [{}, {}, { provisioningState: 'Failed', powerState: 'PowerState/stopped' }] });
      const rt = await fresh.runtime({ pools: [pool('dry', { maxCount: 6, enableFastDeleteOnFailedProvisioning: true })] });
      const outcome = await pass(rt, 'dry', true);
      expect(decisionOf(outcome)?.reason).toMatch(/would adopt 2 running VM\(s\).*would fast-delete/);
      expect(fresh.sim.counts.updateScaleSet + fresh.sim.counts.deleteInstances).toBe(0);
      expect(scaleSet.capacity).toBe(3);
      const tables = ['instances', 'machines', 'targets', 'probes', 'limiters', 'leases', 'decisions', 'samples'] as const;
      const entities = await Promise.all(tables.map((t) => rt.table(t).list()));
      expect(entities.flat()).toEqual([]);
      const messages = await rt.storage.queue('reconcile').peekMessages({ numberOfMessages: 32 });
      expect(messages.peekedMessageItems).toEqual([]);
    } finally {
      await fresh.sim.close();
    }
  });
});

describe('routine churn is not a desync', () => {
  it('a VM seen Deleting and then gone is retired, trips no switch, and the pool refills', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'evict', capacity: 3 });
    const rt = await world.runtime({ pools: [pool('evict', { maxCount: 3 })] });
    await pass(rt, 'evict');
    expect(await rows(rt, 'evict')).toHaveLength(3);
    // Someone else deletes a VM (an eviction, a scale-in): ARM shows it Deleting for a while.
    const victim = scaleSet.vms()[0]!;
    scaleSet.updateVm(victim.name, { provisioningState: 'Deleting' });
    const seen = await pass(rt, 'evict');
    expect(seen.status).toBe('done');
    expect((await rows(rt, 'evict')).find((r) => r.providerId.endsWith(`/${victim.instanceId}`))?.providerStatus).toBe('Missing');
    scaleSet.removeVm(victim.name);
    const gone = await pass(rt, 'evict');
    expect(gone.status).toBe('done');
    expect(decisionOf(gone)?.reason).toMatch(/retired vm .*deleted by Azure/);
    expect(decisionOf(gone)?.decision).toBe('raised capacity 2 → 3');
    await settle();
    await pass(rt, 'evict');
    expect(scaleSet.capacity).toBe(3);
    expect(await ids(rt, 'evict')).toEqual(listedIds('evict'));
  });

  it('a VM gone with the capacity lowered is retired at once, and the pool refills', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'scalein', capacity: 4 });
    const rt = await world.runtime({ pools: [pool('scalein', { maxCount: 4 })] });
    await pass(rt, 'scalein');
    scaleSet.removeVm(scaleSet.vms()[1]!.name);
    const after = await pass(rt, 'scalein');
    expect(after.status).toBe('done');
    expect(decisionOf(after)?.reason).toMatch(/retired vm .*no longer listed, and ARM lists as many VMs as the capacity/);
    expect(decisionOf(after)?.decision).toBe('raised capacity 3 → 4');
    await settle();
    await pass(rt, 'scalein');
    expect(await ids(rt, 'scalein')).toEqual(listedIds('scalein'));
    expect(await ids(rt, 'scalein')).toHaveLength(4);
  });
});

describe('the safety switch', () => {
  it('holds while the capacity counts a VM the list leaves out: nothing written, fast delete included; it clears once the list is whole', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'hiding', capacity: 3 });
    const config = { pools: [pool('hiding', { maxCount: 4, enableFastDeleteOnFailedProvisioning: true })] };
    const healthy = await world.runtime(config);
    await pass(healthy, 'hiding');
    const [hidden, broken] = scaleSet.vms();
    scaleSet.updateVm(broken!.name, { provisioningState: 'Failed', powerState: 'PowerState/stopped' });
    const partial = await world.runtime(config, {
      adapters: {
        scaleSetApi: await realAdapter(healthy, {
          listVms: async (...a) => {
            const listing = await (await healthy.scaleSetApi()).listVms(...a);
            return { ...listing, vms: listing.vms.filter((vm) => vm.name !== hidden!.name) };
          },
        }),
      },
    });
    const before = await partition(healthy, 'hiding');
    const writes = world.sim.counts.updateScaleSet + world.sim.counts.deleteInstances;
    for (let i = 0; i < 2; i++) {
      const held = await pass(partial, 'hiding');
      expect(held.status).toBe('failed');
      expect(decisionOf(held)?.decision).toBe('safety switch');
    }
    expect(world.sim.counts.updateScaleSet + world.sim.counts.deleteInstances).toBe(writes);
    expect(await partition(healthy, 'hiding')).toEqual(before);
    expect((await readInventory(healthy.table('machines'), 'hiding')).safety?.inventoryOnly).toEqual([`azure://${hidden!.id.replace(RG, RG.toLowerCase())}`]);

    const whole = await pass(healthy, 'hiding');
    expect(whole.status).toBe('done');
    expect(decisionOf(whole)?.reason).toMatch(/safety switch cleared/);
    expect(decisionOf(whole)?.decision).toBe('fast-deleted 1');
    expect((await readInventory(healthy.table('machines'), 'hiding')).safety).toBeUndefined();
  });
});

describe('broken machines', () => {
  const cseFailure = { provisioningState: 'Succeeded', powerState: 'PowerState/running', extensions: [{ name: 'vmssCSE', statuses: [{ level: 'Error' as const, message: 'script exited 1' }] }] };

  it('with fast delete, a VM whose custom script extension failed is deleted once and replaced after the backoff', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'cse', capacity: 0 });
    let offset = 0;
    const clock: Clock = { now: () => Date.now() + offset, sleep: systemClock.sleep };
    const rt = await world.runtime({ pools: [pool('cse', { maxCount: 2, enableFastDeleteOnFailedProvisioning: true, enableDetailedCSEMessage: true })] }, { clock });
    scaleSet.failNextCreations(1, cseFailure);
    await pass(rt, 'cse');
    await settle();
    const deletes = world.sim.counts.deleteInstances;
    const second = await pass(rt, 'cse');
    expect(decisionOf(second)?.decision).toBe('fast-deleted 1');
    expect(world.sim.counts.deleteInstances).toBe(deletes + 1);
    await settle();
    // Under the backoff the pool does not refill, and the VM is not deleted twice.
    const third = await pass(rt, 'cse');
    expect(decisionOf(third)?.reason).toMatch(/creations backed off until/);
    expect(world.sim.counts.deleteInstances).toBe(deletes + 1);
    expect(scaleSet.capacity).toBe(1);
    offset = 6 * 60_000;
    const refill = await pass(rt, 'cse');
    expect(decisionOf(refill)?.decision).toBe('raised capacity 1 → 2');
    await settle();
    await pass(rt, 'cse');
    const healthy = (await rows(rt, 'cse')).filter((r) => r.providerStatus === 'Running');
    expect(healthy).toHaveLength(2);
  });

  it('without fast delete, a broken VM stays, keeps its place under maxCount, and status counts it apart', async () => {
    world.sim.addScaleSet({ resourceGroup: RG, name: 'keep', vms: [{}, cseFailure] });
    const rt = await world.runtime({ pools: [pool('keep', { maxCount: 2, enableDetailedCSEMessage: true })] });
    await pass(rt, 'keep');
    const second = await pass(rt, 'keep');
    expect(decisionOf(second)?.decision).toBe('at limit');
    expect(world.sim.scaleSet(RG, 'keep').vms()).toHaveLength(2);
    const status = await poolStatus(rt, rt.config.pools[0]!);
    expect(status.counts).toMatchObject({ healthy: 1, broken: 1 });
  });
});

describe('adoption', () => {
  it('adopts 1,000 running VMs in one pass, whatever the chunk size and creation rate', async () => {
    world.sim.addScaleSet({ resourceGroup: RG, name: 'big', capacity: 1000 });
    const rt = await world.runtime({ pools: [pool('big', { maxCount: 1000, chunkSize: 20, creationRate: '5s,1' })] });
    const outcome = await pass(rt, 'big');
    expect(decisionOf(outcome)?.decision).toBe('adopted 1000');
    expect(await rows(rt, 'big')).toHaveLength(1000);
  }, 60_000);
});

describe('a capacity write that loses its race', () => {
  it('is reported as such, and nothing is adopted for it', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'race', capacity: 0 });
    const config = { pools: [pool('race', { maxCount: 2 })] };
    const plain = await world.runtime(config);
    const racing = await world.runtime(config, {
      adapters: {
        scaleSetApi: await realAdapter(plain, {
          setCapacity: async (...a) => {
            scaleSet.touch();
            return (await plain.scaleSetApi()).setCapacity(...a);
          },
        }),
      },
    });
    const outcome = await pass(racing, 'race');
    expect(decisionOf(outcome)?.decision).toBe('capacity write lost a race');
    expect(decisionOf(outcome)?.reason).toContain('capacity write lost a race with another writer (412): retried next pass');
    expect(scaleSet.capacity).toBe(0);
    expect(await rows(plain, 'race')).toEqual([]);
  });
});

describe('drover machines forget', () => {
  async function cli(rt: Runtime, ...args: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['--config', rt.configFile, 'machines', 'forget', ...args], { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {} });
    return { code, stdout, stderr };
  }

  it('refuses a running VM unless forced, refuses bookkeeping rows, and forgets the rows of VMs that are gone', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'forget', capacity: 3 });
    const rt = await world.runtime({ pools: [pool('forget', { maxCount: 3, enableFastDeleteOnFailedProvisioning: true })] });
    await pass(rt, 'forget');
    const [running] = await ids(rt, 'forget');

    const refused = await cli(rt, '--pool', 'forget', running!);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/as running.*--force/);
    expect(await ids(rt, 'forget')).toContain(running);

    await rt.table('machines').create('forget', '~backoff', { json: '{}' });
    const bookkeeping = await cli(rt, '--pool', 'forget', '~backoff');
    expect(bookkeeping.code).toBe(1);
    expect(await rt.table('machines').get('forget', '~backoff')).toBeDefined();

    // A VM that vanished while the list is short of the capacity: only --gone forgets it.
    const vanished = scaleSet.vms()[2]!;
    scaleSet.removeVm(vanished.name);
    const goneId = `azure://${vanished.id.replace(RG, RG.toLowerCase())}`;
    const preview = await cli(rt, '--pool', 'forget', '--gone', '--dry-run');
    expect(preview.code).toBe(0);
    // Named as status names it.
    expect(preview.stdout).toContain(`  ${shortId(goneId)}\n`);
    expect(await ids(rt, 'forget')).toContain(goneId);
    const gone = await cli(rt, '--pool', 'forget', '--gone');
    expect(gone.code).toBe(0);
    expect(await ids(rt, 'forget')).not.toContain(goneId);

    const forced = await cli(rt, '--pool', 'forget', running!, '--force');
    expect(forced.code).toBe(0);
    expect(await ids(rt, 'forget')).not.toContain(running);
  });
});
