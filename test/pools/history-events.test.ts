// What a pool's passes leave in its history: the state each pass leaves at its own time, and
// the events (VMs adopted, a VM failed and deleted).
import { describe, expect, it } from 'vitest';
import { reconcileObject } from '../../src/reconcile/object.js';
import { silentLog } from '../../src/log.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { armWorldPerFile } from '../support/arm.js';

const world = armWorldPerFile();

const pool = (name: string, fastDelete: boolean) => ({
  name,
  scaleSet: { resourceGroup: 'rg-history', name },
  maxCount: 3,
  chunkSize: 2,
  creationRate: '0s,2',
  reconcileRate: '0s,1',
  instanceCache: { ttl: '0s' },
  enableFastDeleteOnFailedProvisioning: fastDelete,
});

const pass = (rt: Runtime, name: string) => reconcileObject(rt, { kind: 'pool', name }, { reason: 'test' }, { log: silentLog });
const settle = () => new Promise((r) => setTimeout(r, 150));
const events = async (rt: Runtime, name: string) => (await rt.history.read(`pool/${name}`, rt.clock.now())).flatMap((r) => r.events);

describe('a pool history', () => {
  it.each([
    { name: 'fasthist', fastDelete: true, want: [/^adopted rg-history\/fasthist\/0$/, /^rg-history\/fasthist\/\d failed: OutOfResources/, /^deleted rg-history\/fasthist\/\d$/] },
    // Without fast delete (nor its error details) the VM that failed to provision reads as stopped, and stays.
    { name: 'slowhist', fastDelete: false, want: [/^adopted rg-history\/slowhist\/0$/] },
  ])('with fast delete $fastDelete: marks what happened', async ({ name, fastDelete, want }) => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: 'rg-history', name, capacity: 1 });
    const rt = await world.runtime({ pools: [pool(name, fastDelete)] });
    scaleSet.failNextCreations(1);
    for (let i = 0; i < 3; i++) {
      await pass(rt, name);
      await settle();
    }
    const seen = await events(rt, name);
    for (const pattern of want) expect(seen.filter((e) => pattern.test(e)), `${pattern} in ${JSON.stringify(seen)}`).toHaveLength(1);
    if (!fastDelete) expect(seen).toHaveLength(1);
    const last = (await rt.history.read(`pool/${name}`, rt.clock.now())).filter((r) => r.fields).at(-1)!;
    expect(last.fields).toMatchObject(fastDelete ? { capacity: 2, healthy: 2, deleting: 0 } : { capacity: 3, healthy: 2, stopped: 1 });
  });
});
