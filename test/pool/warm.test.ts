/**
 * The warm pass on Azurite and the ARM simulator: when nothing wrote to a pool's partitions, its
 * cache is fresh and the scale set is what the last plan saw, a pass makes at most 3 Table reads
 * and no ARM call; every writer changes a generation and the next pass reads again; a VM that
 * Azure deletes is still seen within the cache's period.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { poolCache } from '../../src/pool/reconcile-pool.js';
import { peekCache } from '../../src/cache/scale-set-cache.js';
import { forgetMachines } from '../../src/pool/forget.js';
import { readInventory } from '../../src/pool/inventory.js';
import { GENERATION_KEY } from '../../src/pool/generation.js';
import type { TableName } from '../../src/state/storage.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { ObjectOutcome } from '../../src/job/context.js';
import { DEFAULT_RATE_LIMIT_HEADERS } from '../../sim/arm/index.js';
import { armWorldPerFile } from '../support/arm.js';

const world = armWorldPerFile();

const RG = 'rg-warm';
const TABLES: TableName[] = ['instances', 'machines', 'targets', 'probes', 'limiters', 'leases', 'decisions', 'samples'];
// No jitter: a cache lists again exactly one period after its first listing, never by chance within a test.
const config = (name: string) => ({
  pools: [{ name, scaleSet: { resourceGroup: RG, name }, maxCount: 3, creationRate: '0s,1', reconcileRate: '10s,1', instanceCache: { ttl: '5m', jitter: '0s' } }],
});
const pass = (rt: Runtime, name: string) => reconcileObject(rt, { kind: 'pool', name }, { reason: 'test' }, { log: silentLog });
const decisionOf = (o: ObjectOutcome) => (o.status === 'done' || o.status === 'failed' ? o.decision : undefined);

/** Counts point reads and partition listings of every table a runtime uses, by table. */
function countReads(rt: Runtime) {
  const gets = new Map<string, number>();
  const lists = new Map<string, number>();
  for (const name of TABLES) {
    const client = rt.table(name).client;
    const get = client.getEntity.bind(client);
    const list = client.listEntities.bind(client);
    client.getEntity = ((...a: Parameters<typeof get>) => {
      gets.set(name, (gets.get(name) ?? 0) + 1);
      return get(...a);
    }) as typeof get;
    client.listEntities = ((...a: Parameters<typeof list>) => {
      lists.set(name, (lists.get(name) ?? 0) + 1);
      return list(...a);
    }) as typeof list;
  }
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return {
    reset: () => (gets.clear(), lists.clear()),
    reads: () => sum(gets) + sum(lists),
    listed: (name: TableName) => lists.get(name) ?? 0,
  };
}

/** A pool with its VMs adopted and a plan that changed nothing recorded: the next pass is warm. */
async function warmPool(name: string) {
  const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name, capacity: 3 });
  const clock = new ManualClock(Date.now());
  const rt = await world.runtime(config(name), { clock });
  const counter = countReads(rt);
  await pass(rt, name); // adopts the 3 VMs
  clock.advance(10_000);
  const quiet = await pass(rt, name); // reads everything, changes nothing, records what it saw
  expect(decisionOf(quiet)?.decision).toBe('at limit');
  clock.advance(10_000);
  return { scaleSet, clock, rt, counter, quiet: decisionOf(quiet)! };
}

/** A pass 10 s later (the test's reconcile rate allows one pass per 10 s), with what it read and called. */
async function measured(rt: Runtime, counter: ReturnType<typeof countReads>, name: string, clock: ManualClock) {
  clock.advance(10_000);
  counter.reset();
  const arm = world.sim.counts.requests;
  const outcome = await pass(rt, name);
  return { outcome, reads: counter.reads(), arm: world.sim.counts.requests - arm, listedInventory: counter.listed('machines'), listedCache: counter.listed('instances') };
}

describe('a warm pass', () => {
  it('makes at most 3 Table reads and no ARM call when nothing changed, and repeats the last decision', async () => {
    const { rt, counter, quiet, clock } = await warmPool('still');
    for (let i = 0; i < 3; i++) {
      const warm = await measured(rt, counter, 'still', clock);
      expect(warm.reads).toBeLessThanOrEqual(3);
      expect(warm.listedInventory + warm.listedCache).toBe(0);
      expect(warm.arm).toBe(0);
      expect(decisionOf(warm.outcome)?.decision).toBe(quiet.decision);
      expect(decisionOf(warm.outcome)?.reason).toBe(quiet.reason);
    }
  });

  it('reads the scale set from ARM again once its stored read is older than the short period, and still skips when it is unchanged', async () => {
    const { rt, counter, clock } = await warmPool('period');
    clock.advance(121_000);
    const gets = world.sim.counts.getScaleSet;
    const warm = await measured(rt, counter, 'period', clock);
    expect(world.sim.counts.getScaleSet - gets).toBe(1);
    expect(warm.arm).toBe(1);
    expect(warm.listedInventory + warm.listedCache).toBe(0);
  });

  it('reads the scale set less often while the listing said ARM\'s budget runs low (the whole cache period)', async () => {
    world.sim.setRateLimitHeaders({ 'x-ms-ratelimit-remaining-resource': 'Microsoft.Compute/HighCostGetVMScaleSet3Min;7' });
    try {
      const { rt, counter, clock } = await warmPool('slowed');
      clock.advance(121_000);
      const warm = await measured(rt, counter, 'slowed', clock);
      expect(warm.arm).toBe(0);
      expect(warm.listedInventory + warm.listedCache).toBe(0);
    } finally {
      world.sim.setRateLimitHeaders({ ...DEFAULT_RATE_LIMIT_HEADERS });
    }
  });

  it('reads again after machines forget wrote the inventory, and re-adopts the forgotten VM', async () => {
    const { rt, counter, scaleSet, clock } = await warmPool('forgot');
    const [vm] = scaleSet.vms();
    const id = `azure://${vm!.id.replace(RG, RG.toLowerCase())}`;
    const forgotten = await forgetMachines(rt, rt.config.pools[0]!, { kind: 'one', id, force: true });
    expect(forgotten).toEqual({ kind: 'forgotten', ids: [id] });
    const next = await measured(rt, counter, 'forgot', clock);
    expect(next.listedInventory).toBe(1);
    expect(decisionOf(next.outcome)?.decision).toMatch(/adopted|brought up/);
    expect((await readInventory(rt.table('machines'), 'forgot')).rows.map((r) => r.rowKey)).toContain(id);
  });

  it('reads again after another instance refreshed the cache to a change or marked an instance; not after a refresh that changed nothing', async () => {
    const { rt, counter, clock, scaleSet } = await warmPool('refreshed');
    const other = await world.runtime(config('refreshed'), { clock, holder: 'other-instance' });
    const cache = poolCache(other, other.config.pools[0]!, await other.scaleSetApi(), silentLog);
    // A listing that finds the VMs as stored keeps the cache's generation: still warm.
    await cache.forceUpdate();
    expect((await measured(rt, counter, 'refreshed', clock)).listedCache).toBe(0);
    // One that finds a VM changed (now protected from scale-in) writes a new generation: read again.
    scaleSet.updateVm(scaleSet.vms()[0]!.name, { protectFromScaleIn: true });
    await cache.forceUpdate();
    const afterRefresh = await measured(rt, counter, 'refreshed', clock);
    expect(afterRefresh.listedCache).toBe(1);
    // The pass after that is warm again…
    expect((await measured(rt, counter, 'refreshed', clock)).listedCache).toBe(0);
    // …until a status mark (as fast delete writes) changes the generation.
    const [first] = (await peekCache(rt.table('instances'), 'rg-warm/refreshed')).instances;
    await cache.setInstancesStatus([first!.id], { state: 'Running', errorInfo: null });
    expect((await measured(rt, counter, 'refreshed', clock)).listedCache).toBe(1);
  });

  it('reads again after a concurrent pass wrote (a bumped inventory generation)', async () => {
    const { rt, counter, clock } = await warmPool('concurrent');
    const other = await world.runtime(config('concurrent'), { clock, holder: 'other-instance' });
    const before = (await rt.table('machines').get('concurrent', GENERATION_KEY))?.props.generation;
    // Another instance's pass sees a new VM (a capacity that moved) and adopts it.
    world.sim.scaleSet(RG, 'concurrent').removeVm(world.sim.scaleSet(RG, 'concurrent').vms()[0]!.name);
    clock.advance(121_000);
    const theirs = await pass(other, 'concurrent');
    expect(theirs.status).toBe('done');
    expect((await rt.table('machines').get('concurrent', GENERATION_KEY))?.props.generation).not.toBe(before);
    const ours = await measured(rt, counter, 'concurrent', clock);
    expect(ours.listedInventory).toBe(1);
  });

  it('still sees a VM that Azure deleted within the cache period: it is retired and replaced', async () => {
    const { rt, clock, scaleSet } = await warmPool('evicted');
    const [vm] = scaleSet.vms();
    scaleSet.removeVm(vm!.name);
    let retired = false;
    for (let waited = 0; waited <= 5 * 60_000 && !retired; waited += 60_000) {
      clock.advance(60_000);
      const outcome = await pass(rt, 'evicted');
      retired = /retired/.test(`${decisionOf(outcome)?.decision} ${decisionOf(outcome)?.reason}`);
    }
    expect(retired).toBe(true);
    const rows = (await readInventory(rt.table('machines'), 'evicted')).rows.map((r) => r.rowKey);
    expect(rows).not.toContain(`azure://${vm!.id.replace(RG, RG.toLowerCase())}`);
  });
});
