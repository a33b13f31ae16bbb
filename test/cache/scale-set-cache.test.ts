import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { createComputeScaleSetApi } from '../../src/azure/compute-adapter.js';
import { ScaleSetCache, peekCache } from '../../src/cache/scale-set-cache.js';
import type { ScaleSetApi } from '../../src/azure/scale-set-api.js';
import { lookupCacheSize, lookupInstance, lookupInstancesByState } from '../../src/cache/queries.js';
import type { InstanceState } from '../../src/cache/instance.js';
import { armWorld, type ArmWorld } from '../support/arm.js';
import { countRequests, freshStorage, sameStorage } from '../support/storage.js';
import { providerIdFromResourceId } from '../../src/cache/ids.js';
import type { Storage } from '../../src/state/storage.js';

let world: ArmWorld;
let storage: Storage;
beforeAll(async () => {
  world = await armWorld();
  storage = await freshStorage();
});
afterAll(async () => {
  await world.sim.close();
});

const PERIOD = 300_000;
// The seed's accessors, over what a validation answers.
const sizeOf = async (c: ScaleSetCache) => lookupCacheSize((await c.validate()).read);
const inState = async (c: ScaleSetCache, state: InstanceState) => lookupInstancesByState((await c.validate()).read, state);
const byId = async (c: ScaleSetCache, id: string) => lookupInstance((await c.validate()).read, id);
let counter = 0;

async function setup(opts: { vms?: number; mode?: 'Uniform' | 'Flexible'; flex?: boolean; jitterMs?: number } = {}) {
  const name = `cache${++counter}`;
  const scaleSet = world.sim.addScaleSet({ resourceGroup: 'RG-Cache', name, capacity: opts.vms ?? 3, orchestrationMode: opts.mode ?? 'Uniform' });
  const clock = new ManualClock(Date.now());
  const api = await createComputeScaleSetApi(world.azure, { clock });
  const cacheFor = (s: Storage = storage, a: ScaleSetApi = api, holder = 'me') =>
    new ScaleSetCache(
      { table: new EntityTable(s.table('instances')), api: a, clock, log: silentLog, holder, random: () => 0 },
      {
        key: `rg-cache/${name}`,
        resourceGroup: 'RG-Cache',
        name,
        periodMs: PERIOD,
        jitterMs: opts.jitterMs ?? 0,
        flags: { enableFastDeleteOnFailedProvisioning: false, enableDetailedCSEMessage: false, enableVmssFlexNodes: opts.flex ?? false },
      },
    );
  const lists = () => world.sim.counts.listVms;
  return { name, scaleSet, clock, api, cacheFor, cache: cacheFor(), lists };
}

describe('the Table-backed instance cache against the ARM simulator', () => {
  it('answers from a fresh cache with no list call, and lists again strictly after the period', async () => {
    const { cache, clock, lists } = await setup();
    const before = lists();
    expect((await sizeOf(cache)).size).toBe(3);
    expect(lists()).toBe(before + 1);
    expect((await sizeOf(cache)).size).toBe(3);
    clock.advance(PERIOD - 1);
    await inState(cache, 'Running');
    expect(lists()).toBe(before + 1);
    clock.advance(1); // last + period == now: expired
    await sizeOf(cache);
    expect(lists()).toBe(before + 2);
  });

  it('lists again a minute after a listing that found a VM being created, then a whole period once none is: in whichever instance asks next', async () => {
    const { cache, cacheFor, scaleSet, clock, lists } = await setup({ vms: 1 });
    // Another Functions instance over the same storage: when to list again is the stored meta row's, not one process's.
    const other = cacheFor(storage, undefined, 'other');
    const creating = scaleSet.addVm({ provisioningState: 'Creating' });
    const before = lists();
    expect((await inState(cache, 'Creating')).instances).toHaveLength(1);
    expect(lists()).toBe(before + 1);
    clock.advance(60_000 - 1);
    await sizeOf(other);
    expect(lists()).toBe(before + 1);
    scaleSet.updateVm(creating.name, { provisioningState: 'Succeeded' });
    clock.advance(1);
    expect((await inState(other, 'Running')).instances).toHaveLength(2);
    expect(lists()).toBe(before + 2);
    // Nothing being created any more: the next listing is a period away, for either instance.
    clock.advance(PERIOD - 1);
    await sizeOf(cache);
    await sizeOf(other);
    expect(lists()).toBe(before + 2);
  });

  it('gives the seed’s error values when listing fails, and keeps the timestamp so the next call lists again', async () => {
    const { cache, clock, lists } = await setup();
    await sizeOf(cache);
    clock.advance(PERIOD);
    const failing: ScaleSetApi = { getScaleSet: () => Promise.reject(new Error('ARM down')), listVms: () => Promise.reject(new Error('ARM down')), setCapacity: () => Promise.reject(new Error('x')), deleteInstances: () => Promise.reject(new Error('x')), setPower: () => Promise.reject(new Error('x')) };
    const broken = new ScaleSetCache({ table: new EntityTable(storage.table('instances')), api: failing, clock, log: silentLog, holder: 'me' }, cache.options);
    const { meta: before } = await peekCache(new EntityTable(storage.table('instances')), cache.options.key);
    const size = await sizeOf(broken);
    expect(size.size).toBe(-1);
    expect(size.error?.message).toBe('ARM down');
    expect(await inState(broken, 'Running')).toEqual({ instances: [], error: expect.any(Error) });
    expect((await byId(broken, 'x')).kind).toBe('failed');
    const { meta: after } = await peekCache(new EntityTable(storage.table('instances')), cache.options.key);
    expect(after?.lastRefresh).toBe(before?.lastRefresh);
    const listsBefore = lists();
    await sizeOf(cache);
    expect(lists()).toBe(listsBefore + 1);
  });

  it('keeps a proactively set status until the next refresh', async () => {
    const { cache, clock } = await setup();
    const [first] = (await inState(cache, 'Running')).instances;
    await cache.setInstancesStatus([first!.id], { state: 'Deleting', errorInfo: null });
    expect((await byId(cache, first!.id))).toMatchObject({ kind: 'found', instance: { state: 'Deleting' } });
    clock.advance(PERIOD);
    expect((await byId(cache, first!.id))).toMatchObject({ kind: 'found', instance: { state: 'Running' } });
  });

  it('lists once when eight clients validate an expired cache at the same time', async () => {
    const { cacheFor, lists, clock } = await setup();
    await sizeOf(cacheFor());
    clock.advance(PERIOD);
    const before = lists();
    const caches = Array.from({ length: 8 }, (_, i) => cacheFor(sameStorage(storage), undefined, `instance-${i}`));
    const sizes = await Promise.all(caches.map((c) => sizeOf(c)));
    expect(lists() - before).toBe(1);
    expect(sizes.every((s) => s.size === 3)).toBe(true);
  });

  it('serves cached instances through a 429 and waits for Retry-After before listing again', async () => {
    const { cache, clock, lists } = await setup();
    await sizeOf(cache);
    clock.advance(PERIOD);
    world.sim.throttleNext(1, { retryAfter: 600, operations: ['listVms'] });
    const size = await sizeOf(cache);
    expect(size).toEqual({ size: 3, error: null });
    const before = lists();
    clock.advance(PERIOD); // past the period, but not past Retry-After (10 min)
    await sizeOf(cache);
    expect(lists()).toBe(before);
    clock.advance(300_001);
    await sizeOf(cache);
    expect(lists()).toBe(before + 1);
  });

  it('refreshes when the scale set’s capacity differs from what it holds', async () => {
    const { cache, scaleSet, api, name, lists } = await setup();
    await sizeOf(cache);
    scaleSet.addVm();
    const info = await api.getScaleSet('RG-Cache', name);
    const before = lists();
    const view = await cache.validate(info);
    expect(lists()).toBe(before + 1);
    expect(view.read.ok && view.read.instances).toHaveLength(4);
  });

  it('refuses a Flexible scale set unless enableVmssFlexNodes is on, and lists it with instance view when on', async () => {
    const off = await setup({ mode: 'Flexible' });
    const refused = await sizeOf(off.cache);
    expect(refused.error?.message).toBe(`vmss - "${off.name}" with Flexible orchestration detected but 'enableVmssFlexNodes' feature flag is turned off`);
    const on = await setup({ mode: 'Flexible', flex: true });
    expect((await sizeOf(on.cache)).size).toBe(3);
    const view = await on.cache.validate();
    expect(view.read.ok && view.read.instances.every((i) => i.id.includes('/resourcegroups/rg-cache/') || i.id.includes('/resourceGroups/rg-cache/'))).toBe(true);
  });

  it('lets no one list while a listing is under way, not even another invocation of the same process', async () => {
    const { api, cacheFor, clock, lists } = await setup();
    await sizeOf(cacheFor());
    clock.advance(PERIOD);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: ScaleSetApi = {
      getScaleSet: (...a) => api.getScaleSet(...a),
      listVms: async (...a) => {
        await gate;
        return api.listVms(...a);
      },
      setCapacity: (...a) => api.setCapacity(...a),
      deleteInstances: (...a) => api.deleteInstances(...a),
      setPower: (...a) => api.setPower(...a),
    };
    const before = lists();
    const first = sizeOf(cacheFor(storage, slow, 'same-process'));
    await new Promise((r) => setTimeout(r, 300)); // the first holds the claim and waits in listVms
    const late = await sizeOf(cacheFor(storage, api, 'same-process'));
    expect(late.size).toBe(3);
    release();
    await first;
    expect(lists() - before).toBe(1);
  });

  it('does not chase a capacity change while ARM throttles it', async () => {
    const { cache, clock, scaleSet, api, name, lists } = await setup();
    await sizeOf(cache);
    clock.advance(PERIOD);
    world.sim.throttleNext(1, { retryAfter: 600, operations: ['listVms'] });
    await sizeOf(cache);
    scaleSet.addVm();
    const info = await api.getScaleSet('RG-Cache', name);
    const before = lists();
    await cache.validate(info);
    expect(lists()).toBe(before);
  });

  it('does not list again for VMs that are being deleted (ARM lowered the capacity already)', async () => {
    const { cache, api, name, lists } = await setup();
    const [victim] = (await inState(cache, 'Running')).instances;
    await cache.setInstancesStatus([victim!.id], { state: 'Deleting', errorInfo: null });
    const info = { ...(await api.getScaleSet('RG-Cache', name)), capacity: 2 };
    const before = lists();
    await cache.validate(info);
    expect(lists()).toBe(before);
  });
});

describe('a VM whose resource id cannot be parsed (issue 13)', () => {
  it('counts as present, so capacity does not drift and the cache does not list on every pass; one warning per listing', async () => {
    const { name, clock, api, lists } = await setup({ vms: 3 });
    const corrupt: ScaleSetApi = {
      ...api,
      getScaleSet: (...a) => api.getScaleSet(...a),
      listVms: async (...a) => {
        const listing = await api.listVms(...a);
        return { ...listing, vms: listing.vms.map((vm, i) => (i === 0 ? { ...vm, id: `/subscriptions/x/${'a/'.repeat(600)}` } : vm)) };
      },
    };
    const warnings: string[] = [];
    const cache = new ScaleSetCache(
      { table: new EntityTable(storage.table('instances')), api: corrupt, clock, log: { ...silentLog, warn: (...a: unknown[]) => warnings.push(a.join(' ')) }, holder: 'me', random: () => 0 },
      {
        key: `rg-cache/${name}`,
        resourceGroup: 'RG-Cache',
        name,
        periodMs: PERIOD,
        jitterMs: 0,
        flags: { enableFastDeleteOnFailedProvisioning: false, enableDetailedCSEMessage: false, enableVmssFlexNodes: false },
      },
    );
    const info = await api.getScaleSet('RG-Cache', name);
    const before = lists();
    const first = await cache.validate(info);
    expect(first.listed).toBe(true);
    expect(first.read.ok && first.read.instances).toHaveLength(2);
    for (let i = 0; i < 3; i++) {
      clock.advance(1_000);
      expect((await cache.validate(info)).listed).toBe(false);
    }
    expect(lists()).toBe(before + 1);
    expect(warnings).toEqual([expect.stringMatching(/1 VM\(s\) with a resource id that cannot be parsed, counted as present/)]);
  });
});

describe('the cache stored packed', () => {
  it('stores 250 VMs as the meta row and one pack row, read back in one query', async () => {
    const { cache } = await setup({ vms: 250 });
    const table = new EntityTable(storage.table('instances'));
    const queries = countRequests(table);
    const listed = await cache.validate();
    expect(listed.read.ok && listed.read.instances).toHaveLength(250);
    expect((await table.list(cache.options.key)).map((r) => r.rowKey)).toEqual(['~meta', '~pack-000']);
    queries.length = 0;
    const { instances } = await peekCache(table, cache.options.key);
    expect(instances).toEqual(listed.read.ok ? listed.read.instances : []);
    expect(queries).toEqual(['GET']);
  });

  it('reads a cache of the old one-row-per-VM format once, lists, packs it and deletes the old rows', async () => {
    const { cache, scaleSet, lists } = await setup({ vms: 2 });
    const table = new EntityTable(storage.table('instances'));
    const [a, b] = scaleSet.vms().map((v) => providerIdFromResourceId(v.id));
    await table.create(cache.options.key, '~meta', { lastRefresh: Date.now(), periodMs: PERIOD, jitterSec: 0, generation: 1 });
    await table.create(cache.options.key, a!, { name: 'a', state: 'Deleting', powerState: 'PowerState/running' });
    await table.create(cache.options.key, b!, { name: 'b', state: 'Running', powerState: 'PowerState/running' });
    const gone = 'azure:///subscriptions/s/resourceGroups/rg-cache/providers/Microsoft.Compute/virtualMachineScaleSets/x/virtualMachines/9';
    await table.create(cache.options.key, gone, { name: 'gone', state: 'Deleting', powerState: 'PowerState/running' });
    const before = lists();
    const view = await cache.validate();
    expect(lists()).toBe(before + 1);
    // What the old rows said is what this listing went on (a VM seen Deleting that ARM no longer lists).
    expect(view.previous.map((i) => [i.id, i.state]).sort()).toEqual([[a, 'Deleting'], [b, 'Running'], [gone, 'Deleting']].sort());
    expect((await table.list(cache.options.key)).map((r) => r.rowKey)).toEqual(['~meta', '~pack-000']);
    expect((await peekCache(table, cache.options.key)).instances.map((i) => i.id).sort()).toEqual([a, b].sort());
  });

  it('writes nothing in a dry run (peek): the same plan lists ARM into memory only', async () => {
    const { cache, clock, scaleSet, api, name, lists } = await setup({ vms: 3 });
    await cache.validate();
    const table = new EntityTable(storage.table('instances'));
    const rowsBefore = await table.list(cache.options.key);
    scaleSet.addVm();
    clock.advance(PERIOD);
    const before = lists();
    const view = await cache.peek(await api.getScaleSet('RG-Cache', name));
    expect(lists()).toBe(before + 1);
    expect(view.read.ok && view.read.instances).toHaveLength(4);
    expect(await table.list(cache.options.key)).toEqual(rowsBefore);
  });

  it('loses no mark when eight invocations mark different VMs at once (the pack is written under the meta row ETag)', async () => {
    const { cacheFor } = await setup({ vms: 8 });
    const listed = await cacheFor().validate();
    const ids = listed.read.ok ? listed.read.instances.map((i) => i.id) : [];
    await Promise.all(ids.map((id, i) => cacheFor(sameStorage(storage), undefined, `instance-${i}`).setInstancesStatus([id], { state: 'Deleting', errorInfo: null })));
    const { instances } = await peekCache(new EntityTable(storage.table('instances')), cacheFor().options.key);
    expect(instances.map((i) => i.state)).toEqual(ids.map(() => 'Deleting'));
  });
});
