import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { createComputeScaleSetApi } from '../../src/azure/compute-adapter.js';
import { ScaleSetCache, peekCache } from '../../src/cache/scale-set-cache.js';
import type { ScaleSetApi } from '../../src/azure/scale-set-api.js';
import { armWorld, type ArmWorld } from '../support/arm.js';
import { freshStorage, sameStorage } from '../support/storage.js';
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
    expect((await cache.size()).size).toBe(3);
    expect(lists()).toBe(before + 1);
    expect((await cache.size()).size).toBe(3);
    clock.advance(PERIOD - 1);
    await cache.getInstancesByState('Running');
    expect(lists()).toBe(before + 1);
    clock.advance(1); // last + period == now: expired
    await cache.size();
    expect(lists()).toBe(before + 2);
  });

  it('lists on the next call after invalidate', async () => {
    const { cache, lists } = await setup();
    await cache.size();
    const before = lists();
    await cache.invalidate();
    await cache.size();
    expect(lists()).toBe(before + 1);
  });

  it('gives the seed’s error values when listing fails, and keeps the timestamp so the next call lists again', async () => {
    const { cache, clock, lists } = await setup();
    await cache.size();
    clock.advance(PERIOD);
    const failing: ScaleSetApi = { getScaleSet: () => Promise.reject(new Error('ARM down')), listVms: () => Promise.reject(new Error('ARM down')), setCapacity: () => Promise.reject(new Error('x')), deleteInstances: () => Promise.reject(new Error('x')) };
    const broken = new ScaleSetCache({ table: new EntityTable(storage.table('instances')), api: failing, clock, log: silentLog, holder: 'me' }, cache.options);
    const { meta: before } = await peekCache(new EntityTable(storage.table('instances')), cache.options.key);
    const size = await broken.size();
    expect(size.size).toBe(-1);
    expect(size.error?.message).toBe('ARM down');
    expect(await broken.getInstancesByState('Running')).toEqual({ instances: [], error: expect.any(Error) });
    expect((await broken.getInstanceByProviderId('x')).kind).toBe('failed');
    const { meta: after } = await peekCache(new EntityTable(storage.table('instances')), cache.options.key);
    expect(after?.lastRefresh).toBe(before?.lastRefresh);
    const listsBefore = lists();
    await cache.size();
    expect(lists()).toBe(listsBefore + 1);
  });

  it('keeps a proactively set status until the next refresh', async () => {
    const { cache, clock } = await setup();
    const [first] = (await cache.getInstancesByState('Running')).instances;
    await cache.setInstanceStatus(first!.id, { state: 'Deleting', errorInfo: null });
    expect((await cache.getInstanceByProviderId(first!.id))).toMatchObject({ kind: 'found', instance: { state: 'Deleting' } });
    clock.advance(PERIOD);
    expect((await cache.getInstanceByProviderId(first!.id))).toMatchObject({ kind: 'found', instance: { state: 'Running' } });
  });

  it('lists once when eight clients validate an expired cache at the same time', async () => {
    const { cacheFor, lists, clock } = await setup();
    await cacheFor().size();
    clock.advance(PERIOD);
    const before = lists();
    const caches = Array.from({ length: 8 }, (_, i) => cacheFor(sameStorage(storage), undefined, `instance-${i}`));
    const sizes = await Promise.all(caches.map((c) => c.size()));
    expect(lists() - before).toBe(1);
    expect(sizes.every((s) => s.size === 3)).toBe(true);
  });

  it('serves cached instances through a 429 and waits for Retry-After before listing again', async () => {
    const { cache, clock, lists } = await setup();
    await cache.size();
    clock.advance(PERIOD);
    world.sim.throttleNext(1, { retryAfter: 600, operations: ['listVms'] });
    const size = await cache.size();
    expect(size).toEqual({ size: 3, error: null });
    const before = lists();
    clock.advance(PERIOD); // past the period, but not past Retry-After (10 min)
    await cache.size();
    expect(lists()).toBe(before);
    clock.advance(300_001);
    await cache.size();
    expect(lists()).toBe(before + 1);
  });

  it('refreshes when the scale set’s capacity differs from what it holds', async () => {
    const { cache, scaleSet, api, name, lists } = await setup();
    await cache.size();
    scaleSet.addVm();
    const info = await api.getScaleSet('RG-Cache', name);
    const before = lists();
    const view = await cache.validate(info);
    expect(lists()).toBe(before + 1);
    expect(view.read.ok && view.read.instances).toHaveLength(4);
  });

  it('refuses a Flexible scale set unless enableVmssFlexNodes is on, and lists it with instance view when on', async () => {
    const off = await setup({ mode: 'Flexible' });
    const refused = await off.cache.size();
    expect(refused.error?.message).toBe(`vmss - "${off.name}" with Flexible orchestration detected but 'enableVmssFlexNodes' feature flag is turned off`);
    const on = await setup({ mode: 'Flexible', flex: true });
    expect((await on.cache.size()).size).toBe(3);
    const view = await on.cache.validate();
    expect(view.read.ok && view.read.instances.every((i) => i.id.includes('/resourcegroups/rg-cache/') || i.id.includes('/resourceGroups/rg-cache/'))).toBe(true);
  });

  it('lets no one list while a listing is under way, not even another invocation of the same process', async () => {
    const { api, cacheFor, clock, lists } = await setup();
    await cacheFor().size();
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
    };
    const before = lists();
    const first = cacheFor(storage, slow, 'same-process').size();
    await new Promise((r) => setTimeout(r, 300)); // the first holds the claim and waits in listVms
    const late = await cacheFor(storage, api, 'same-process').size();
    expect(late.size).toBe(3);
    release();
    await first;
    expect(lists() - before).toBe(1);
  });

  it('does not chase a capacity change while ARM throttles it', async () => {
    const { cache, clock, scaleSet, api, name, lists } = await setup();
    await cache.size();
    clock.advance(PERIOD);
    world.sim.throttleNext(1, { retryAfter: 600, operations: ['listVms'] });
    await cache.size();
    scaleSet.addVm();
    const info = await api.getScaleSet('RG-Cache', name);
    const before = lists();
    await cache.validate(info);
    expect(lists()).toBe(before);
  });

  it('does not list again for VMs that are being deleted (ARM lowered the capacity already)', async () => {
    const { cache, api, name, lists } = await setup();
    const [victim] = (await cache.getInstancesByState('Running')).instances;
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
