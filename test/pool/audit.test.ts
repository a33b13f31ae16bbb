/**
 * The audit's bugs in the pool path, each reproduced on Azurite and the ARM simulator through
 * the whole reconcile (issue 21): every test here failed on the code before its fix.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readInventory } from '../../src/pool/inventory.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { ObjectOutcome } from '../../src/reconcile/types.js';
import { armWorld, type ArmWorld } from '../support/arm.js';

let world: ArmWorld;
beforeAll(async () => {
  world = await armWorld();
});
afterAll(async () => {
  await world.sim.close();
  rmSync(world.dir, { recursive: true, force: true });
});

const RG = 'rg-audit';
const MIN = 60_000;
const pool = (name: string, extra: object = {}) => ({
  name,
  scaleSet: { resourceGroup: RG, name },
  creationRate: '0s,1',
  reconcileRate: '0s,1',
  instanceCache: { ttl: '0s' },
  ...extra,
});
const pass = (rt: Runtime, name: string, reason = 'test') => reconcileObject(rt, { kind: 'pool', name }, { reason }, { log: silentLog });
const decisionOf = (o: ObjectOutcome) => (o.status === 'done' || o.status === 'failed' ? o.decision : undefined);
/** A clock the test moves on by hand (the simulator keeps the real one). */
function movable(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, sleep: systemClock.sleep, advance: (ms) => (offset += ms) };
}

describe('bug 1: the creation backoff counts a broken VM once', () => {
  it('a delete answered 409 on 4 passes a minute apart leaves 1 failure and 5 min, not 4 and 30', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'b1', vms: [{}, { provisioningState: 'Failed', powerState: 'PowerState/stopped' }] });
    const clock = movable();
    const rt = await world.runtime({ pools: [pool('b1', { maxCount: 2, enableFastDeleteOnFailedProvisioning: true })] }, { clock });
    world.sim.failNext(4, { status: 409, code: 'OperationNotAllowed', message: 'another operation is in progress', operations: ['deleteInstances'] });
    const first = clock.now();
    for (let i = 0; i < 4; i++) {
      const outcome = await pass(rt, 'b1');
      expect(outcome.status).toBe('failed');
      clock.advance(MIN);
    }
    const { backoff } = await readInventory(rt.table('machines'), 'b1');
    expect(backoff?.failures).toBe(1);
    expect(backoff!.until - first).toBeGreaterThanOrEqual(5 * MIN);
    expect(backoff!.until - first).toBeLessThan(5 * MIN + 10_000);
    // The fifth pass's delete goes out, still under the first failure's backoff.
    const fifth = await pass(rt, 'b1');
    expect(decisionOf(fifth)?.decision).toBe('fast-deleted 1');
    expect((await readInventory(rt.table('machines'), 'b1')).backoff?.failures).toBe(1);
    expect(scaleSet.capacity).toBe(1);
  });
});
