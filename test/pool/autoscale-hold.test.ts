/**
 * One controller per scale set, on Azurite and the ARM simulator (issue 21): an enabled Azure
 * Monitor autoscale setting on a pool's scale set holds the pool (no write at all, the reason in
 * status, status JSON, the page and the decision log) until the setting is disabled and the
 * cached list of settings has expired; the list is read at most once per instance cache ttl.
 * Also the pool notes status shows: overprovisioning, the terminate notification, protected VMs
 * kept above the wanted count.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog, type Log } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readInventory } from '../../src/pool/inventory.js';
import { writeWanted } from '../../src/pool/wanted.js';
import { OVERPROVISION_WARNING } from '../../src/pool/notes.js';
import { buildStatus } from '../../src/status/status.js';
import { buildStatusPage } from '../../src/status/page/status-page.js';
import { renderStatus } from '../../src/cli/render.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { ObjectOutcome } from '../../src/job/context.js';
import { armWorldPerFile } from '../support/arm.js';

const world = armWorldPerFile();

const RG = 'rg-autoscale';
const HELD = 'autoscale setting "cpu-rules" is enabled on this scale set; disable it or remove the target';
const TTL_MS = 5 * 60_000;
const pool = (name: string, extra: object = {}) => ({
  name,
  scaleSet: { resourceGroup: RG, name },
  maxCount: 4,
  creationRate: '0s,1',
  deletionRate: '0s,1',
  reconcileRate: '0s,1',
  instanceCache: { ttl: '5m' },
  ...extra,
});
const pass = (rt: Runtime, name: string, log: Log = silentLog, dryRun = false) => reconcileObject(rt, { kind: 'pool', name }, { reason: 'test', dryRun }, { log });
const decisionOf = (o: ObjectOutcome) => (o.status === 'done' || o.status === 'failed' ? o.decision : undefined);
const writes = () => ({ update: world.sim.counts.updateScaleSet, delete: world.sim.counts.deleteInstances });
const poolStatusOf = async (rt: Runtime) => (await buildStatus(rt)).pools[0]!;

describe('an enabled autoscale setting on the scale set', () => {
  it('holds the pool: no write at all, the reason in status, the page and the decision log; disabled, the pool goes on once the cached list expired', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'held', capacity: 2 });
    const other = world.sim.addScaleSet({ resourceGroup: RG, name: 'other-set', capacity: 0 });
    // ARM's ids come in any case: the target is matched case-insensitively.
    const setting = world.sim.addAutoscaleSetting({ resourceGroup: RG, name: 'cpu-rules', targetResourceUri: scaleSet.id.toLowerCase() });
    world.sim.addAutoscaleSetting({ resourceGroup: RG, name: 'elsewhere', targetResourceUri: other.id });
    const clock = new ManualClock(Date.now());
    const rt = await world.runtime({ pools: [pool('held')] }, { clock });
    const before = writes();
    const lists = world.sim.counts.listAutoscaleSettings;

    const held = decisionOf(await pass(rt, 'held'));
    expect(held).toMatchObject({ decision: 'held', reason: HELD });
    expect(writes()).toEqual(before);
    expect(scaleSet.capacity).toBe(2);
    // Not even the inventory: the two running VMs are not adopted while held.
    expect((await readInventory(rt.table('machines'), 'held')).rows).toHaveLength(0);

    const status = await poolStatusOf(rt);
    expect(status.hold).toEqual({ reason: HELD, setting: 'cpu-rules', since: new Date(clock.now()).toISOString() });
    expect(renderStatus(await buildStatus(rt), clock.now())).toContain(`HELD since`);
    expect(renderStatus(await buildStatus(rt), clock.now())).toContain(HELD);
    const page = await buildStatusPage(rt, await buildStatus(rt), new URLSearchParams());
    expect(page.html).toContain('data-field="autoscale-hold"');
    expect(page.html).toContain('autoscale setting &quot;cpu-rules&quot; is enabled on this scale set');
    const [logged] = await rt.decisions.recent(clock.now(), 1);
    expect(logged).toMatchObject({ object: 'pool/held', decision: 'held', reason: HELD });

    // Disabled, but the list read a minute ago stands for the cache ttl: still held, not read again.
    setting.disable();
    clock.advance(60_000);
    expect(decisionOf(await pass(rt, 'held'))?.decision).toBe('held');
    expect(writes()).toEqual(before);
    expect(world.sim.counts.listAutoscaleSettings - lists).toBe(1);

    clock.advance(TTL_MS);
    const goes = decisionOf(await pass(rt, 'held'));
    expect(goes?.decision).toBe('raised capacity 2 → 4');
    expect(scaleSet.capacity).toBe(4);
    expect(world.sim.counts.listAutoscaleSettings - lists).toBe(2);
    expect((await poolStatusOf(rt)).hold).toBeNull();
  });

  it('a disabled setting, or one on another scale set, holds nothing', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'free', capacity: 1 });
    world.sim.addAutoscaleSetting({ resourceGroup: RG, name: 'off-rules', targetResourceUri: scaleSet.id, enabled: false });
    const rt = await world.runtime({ pools: [pool('free')] });
    expect(decisionOf(await pass(rt, 'free'))?.decision).toBe('raised capacity 1 → 4');
    expect((await poolStatusOf(rt)).hold).toBeNull();
  });

  it('settings that cannot be read hold the pool and name the permission; the read is tried again within a minute', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'unread', capacity: 1 });
    world.sim.failNext(1, { status: 403, code: 'AuthorizationFailed', message: 'no autoscalesettings/read', operations: ['listAutoscaleSettings'] });
    const clock = new ManualClock(Date.now());
    const rt = await world.runtime({ pools: [pool('unread')] }, { clock });
    const before = writes();
    const held = decisionOf(await pass(rt, 'unread'));
    expect(held?.decision).toBe('held');
    expect(held?.reason).toContain(`the autoscale settings of resource group ${RG} could not be read`);
    expect(held?.reason).toContain('no autoscalesettings/read');
    expect(held?.reason).toContain('Microsoft.Insights/autoscalesettings/read');
    expect(writes()).toEqual(before);
    clock.advance(60_000);
    expect(decisionOf(await pass(rt, 'unread'))?.decision).toBe('raised capacity 1 → 4');
    expect(scaleSet.capacity).toBe(4);
  });

  it('a dry run says it would hold, and writes nothing', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'dry', capacity: 1 });
    world.sim.addAutoscaleSetting({ resourceGroup: RG, name: 'dry-rules', targetResourceUri: scaleSet.id });
    const rt = await world.runtime({ pools: [pool('dry')] });
    const before = writes();
    expect(decisionOf(await pass(rt, 'dry', silentLog, true))).toMatchObject({ decision: 'would hold', reason: 'autoscale setting "dry-rules" is enabled on this scale set; disable it or remove the target' });
    expect(writes()).toEqual(before);
    expect((await poolStatusOf(rt)).hold).toBeNull();
  });
});

describe('what status shows of the scale set and the scale-in', () => {
  it('overprovisioning on a Uniform scale set: a warning in status, and once in the log and the decision log', async () => {
    world.sim.addScaleSet({ resourceGroup: RG, name: 'over', capacity: 1, settings: { overprovision: true } });
    const warned: string[] = [];
    const log: Log = { ...silentLog, warn: (line: unknown) => void warned.push(String(line)) };
    const rt = await world.runtime({ pools: [pool('over', { maxCount: 2 })] });
    const first = decisionOf(await pass(rt, 'over', log));
    expect(first?.reason).toContain(`warning: ${OVERPROVISION_WARNING}`);
    await pass(rt, 'over', log);
    expect(warned).toEqual([`pool over: ${OVERPROVISION_WARNING}`]);
    expect((await poolStatusOf(rt)).warnings).toEqual([OVERPROVISION_WARNING]);
    expect(renderStatus(await buildStatus(rt), Date.now())).toContain(`warning: ${OVERPROVISION_WARNING}`);
  });

  it('the terminate notification: on with its timeout, or off', async () => {
    world.sim.addScaleSet({ resourceGroup: RG, name: 'notified', capacity: 1, settings: { terminateNotification: { enable: true, notBeforeTimeout: 'PT7M' } } });
    world.sim.addScaleSet({ resourceGroup: RG, name: 'silent', capacity: 1 });
    const rt = await world.runtime({ pools: [pool('notified', { maxCount: 1 }), pool('silent', { maxCount: 1 })] });
    const unread = (await buildStatus(rt)).pools;
    expect(unread.map((p) => p.terminateNotification)).toEqual([null, null]);
    await pass(rt, 'notified');
    await pass(rt, 'silent');
    const [notified, silent] = (await buildStatus(rt)).pools;
    expect(notified!.terminateNotification).toEqual({ enabled: true, notBeforeTimeout: 'PT7M' });
    expect(silent!.terminateNotification).toEqual({ enabled: false, notBeforeTimeout: null });
    const text = renderStatus(await buildStatus(rt), Date.now());
    expect(text).toContain('terminate notification: on (a VM gets a Terminate scheduled event PT7M before it is deleted)');
    expect(text).toContain('terminate notification: off');
    const page = await buildStatusPage(rt, await buildStatus(rt), new URLSearchParams());
    expect(page.html).toContain('data-field="terminate-notification">terminate notification: on');
  });

  it('protected VMs kept above the wanted count: the reason in status and on the page, gone once the pool is there', async () => {
    const guarded = { protectFromScaleIn: true };
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'guarded', vms: [guarded, {}, guarded, guarded, guarded] });
    const rt = await world.runtime({ pools: [pool('guarded', { maxCount: 5 })] });
    await pass(rt, 'guarded');
    await writeWanted(rt.table('machines'), 'guarded', 1, 'test', Date.now());
    const scaledIn = decisionOf(await pass(rt, 'guarded'));
    // The decision names the VM it deleted by its name, as churn and fast delete do.
    expect(scaledIn?.reason).toContain('scaled in: deleted 1 VM(s) by instance id in 1 call(s): guarded_1');
    const status = await poolStatusOf(rt);
    expect(status.keptAboveWanted).toBe('4 protected VMs kept above the wanted 1');
    expect(renderStatus(await buildStatus(rt), Date.now())).toContain('scale-in: 4 protected VMs kept above the wanted 1');
    const page = await buildStatusPage(rt, await buildStatus(rt), new URLSearchParams());
    expect(page.html).toContain('data-field="kept-above-wanted">scale-in: 4 protected VMs kept above the wanted 1');
    // Wanted as many as the protected VMs left: nothing is kept above it, and the note goes.
    expect(scaleSet.vms().filter((v) => v.provisioningState !== 'Deleting')).toHaveLength(4);
    await writeWanted(rt.table('machines'), 'guarded', 4, 'test', Date.now());
    await pass(rt, 'guarded');
    expect((await poolStatusOf(rt)).keptAboveWanted).toBeNull();
  });

  it('VMs younger than scaleIn.minAge held above the wanted count: counted in status, named MinAge in the decision, deleted once they come of age (before the cached list expires)', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'young', capacity: 3 });
    const clock = new ManualClock(Date.now());
    const rt = await world.runtime({ pools: [pool('young', { maxCount: 3, scaleIn: { minAge: '2m' } })] }, { clock });
    await pass(rt, 'young');
    await writeWanted(rt.table('machines'), 'young', 1, 'test', clock.now());
    const held = decisionOf(await pass(rt, 'young'));
    expect(held?.reason).toContain('2 running VM(s) younger than scaleIn.minAge 2m held back above the wanted 1: none of them is chosen instead (boundBy: MinAge)');
    expect(scaleSet.vms().filter((v) => v.provisioningState !== 'Deleting')).toHaveLength(3);
    expect((await poolStatusOf(rt)).heldByMinAge).toBe(2);
    expect(renderStatus(await buildStatus(rt), clock.now())).toContain('scale-in: 2 running VM(s) younger than scaleIn.minAge kept above the wanted count (boundBy: MinAge)');
    // The held pass changed nothing, so the next pass would repeat it: only until the VMs come of
    // age, well within the cached list's TTL.
    expect(decisionOf(await pass(rt, 'young'))?.reason).toContain('boundBy: MinAge');
    clock.advance(2 * 60_000 + 10_000);
    expect(clock.now() - Date.now()).toBeLessThan(TTL_MS);
    await pass(rt, 'young');
    expect(scaleSet.vms().filter((v) => v.provisioningState !== 'Deleting')).toHaveLength(1);
    expect((await poolStatusOf(rt)).heldByMinAge).toBe(0);
  });
});
