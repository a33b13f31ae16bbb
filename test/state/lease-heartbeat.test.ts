// Issue 13: leases that fail fast. Short leases kept alive by a heartbeat while the holder
// works; a lost lease aborts the work; a killed holder blocks its object for under 20 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/clock.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { HEARTBEAT_MS, LEASE_TTL_MS, Leases, isLeaseExpired, withLease } from '../../src/state/leases.js';
import type { Storage } from '../../src/state/storage.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { silentLog } from '../../src/log.js';
import { readInventory } from '../../src/pool/inventory.js';
import { providerIdFromResourceId } from '../../src/cache/ids.js';
import { armWorld, type ArmWorld } from '../support/arm.js';
import { freshStorage, sameStorage } from '../support/storage.js';

let storage: Storage;
let world: ArmWorld;
beforeAll(async () => {
  storage = await freshStorage();
  world = await armWorld();
});
afterAll(async () => {
  await world.sim.close();
});

const leases = (s: Storage, clock = systemClock) => new Leases(new EntityTable(s.table('leases')), clock);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the lease heartbeat', () => {
  it('keeps a short lease while the holder works past its TTL, and frees it when the work ends', async () => {
    const mine = leases(storage);
    const other = leases(sameStorage(storage));
    let stolen = 0;
    const result = await withLease(
      mine,
      systemClock,
      'pool/long',
      'worker',
      400,
      async () => {
        for (let i = 0; i < 12; i++) {
          await sleep(100);
          if ((await other.acquire('pool/long', 'thief', 400)).acquired) stolen++;
        }
        return 'finished';
      },
      { heartbeatMs: 100 },
    );
    expect(result).toEqual({ ran: true, value: 'finished' });
    expect(stolen).toBe(0);
    expect((await other.acquire('pool/long', 'next', 400)).acquired).toBe(true);
  });

  it('aborts the work when a renewal finds the lease taken over', async () => {
    const mine = leases(storage);
    // Another holder takes the row over (the row is gone from under its holder, then taken).
    const late = leases(sameStorage(storage));
    let aborted: unknown;
    const result = await withLease(
      mine,
      systemClock,
      'pool/stolen',
      'worker',
      10_000,
      async (guard) => {
        await late.table.delete('lease', 'pool/stolen');
        expect((await late.acquire('pool/stolen', 'usurper', 10_000)).acquired).toBe(true);
        const started = Date.now();
        while (!guard.signal.aborted && Date.now() - started < 2_000) await sleep(20);
        aborted = guard.signal.reason;
        await expect(guard.check()).rejects.toSatisfy(isLeaseExpired);
        return Date.now() - started;
      },
      { heartbeatMs: 100 },
    );
    expect(isLeaseExpired(aborted)).toBe(true);
    expect(result.ran && result.value).toBeLessThan(1_000);
    expect((await late.holderOf('pool/stolen'))?.holder).toBe('usurper');
  });

  it('aborts the work when the caller aborts, and refuses writes after that', async () => {
    const ac = new AbortController();
    const result = await withLease(leases(storage), systemClock, 'pool/caller', 'worker', 10_000, async (guard) => {
      ac.abort(new Error('the pass ran out of time'));
      expect(guard.signal.aborted).toBe(true);
      await expect(guard.check()).rejects.toThrow(/the pass ran out of time/);
      return 'stopped';
    }, { signal: ac.signal });
    expect(result).toEqual({ ran: true, value: 'stopped' });
  });
});

describe('a holder killed mid-write', () => {
  it('blocks its pool for under 20 s: a reconcile 20 s later finishes the job, nothing lost or doubled', async () => {
    expect(LEASE_TTL_MS + HEARTBEAT_MS).toBeLessThanOrEqual(20_000);
    const name = `killed${Math.random().toString(36).slice(2, 8)}`;
    const scaleSet = world.sim.addScaleSet({ resourceGroup: 'rg-killed', name, capacity: 0 });
    const config = { pools: [{ name, scaleSet: { resourceGroup: 'rg-killed', name }, maxCount: 4, chunkSize: 4, creationRate: '0s,1', reconcileRate: '0s,1' }] };
    const clock = new ManualClock(Date.now());
    const survivor = await world.runtime(config, { clock });
    const real = await survivor.scaleSetApi();
    // The holder dies right after ARM accepted its capacity write, before any inventory row.
    const dying = await world.runtime(config, {
      clock,
      adapters: {
        scaleSetApi: {
          ...real,
          getScaleSet: (...a) => real.getScaleSet(...a),
          listVms: (...a) => real.listVms(...a),
          deleteInstances: (...a) => real.deleteInstances(...a),
          setCapacity: async (...a) => {
            await real.setCapacity(...a);
            throw new Error('killed');
          },
        },
      },
    });
    expect((await reconcileObject(dying, { kind: 'pool', name }, { reason: 'test' }, { log: silentLog })).status).toBe('failed');
    expect(scaleSet.capacity).toBe(4);
    // What SIGKILL leaves behind: the lease row as its last heartbeat wrote it, never released.
    expect((await dying.leases.acquire(`pool/${name}`, 'killed-holder', LEASE_TTL_MS)).acquired).toBe(true);

    clock.advance(10_000);
    expect((await reconcileObject(survivor, { kind: 'pool', name }, { reason: 'test' }, { log: silentLog })).status).toBe('busy');
    clock.advance(10_000);
    await sleep(150); // the simulator's VMs finish provisioning
    const later = await reconcileObject(survivor, { kind: 'pool', name }, { reason: 'drover reconcile' }, { log: silentLog });
    expect(later.status).toBe('done');
    await reconcileObject(survivor, { kind: 'pool', name }, { reason: 'again' }, { log: silentLog });
    expect(scaleSet.capacity).toBe(4);
    const { rows } = await readInventory(survivor.table('machines'), name);
    expect(rows.map((r) => r.rowKey).sort()).toEqual(scaleSet.vms().map((v) => providerIdFromResourceId(v.id)).sort());
  });
});
