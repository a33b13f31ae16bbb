import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileObject } from '../../src/reconcile/object.js';
import { silentLog } from '../../src/log.js';
import { InventoryStore } from '../../src/provisioner/inventory-store.js';
import type { ScaleSetApi } from '../../src/azure/scale-set-api.js';
import type { TableClient } from '@azure/data-tables';
import type { Runtime, TableFactory } from '../../src/runtime/runtime.js';
import { EntityTable, type Props, type Row } from '../../src/state/entity-table.js';
import { armWorld, type ArmWorld } from '../support/arm.js';
import { providerIdFromResourceId } from '../../src/cache/ids.js';

let world: ArmWorld;
beforeAll(async () => {
  world = await armWorld();
});
afterAll(async () => {
  await world.sim.close();
});

const pass = (rt: Runtime, name: string) => reconcileObject(rt, { kind: 'pool', name }, { reason: 'test' }, { log: silentLog });
const settle = () => new Promise((r) => setTimeout(r, 120));

/** Where the crashing runtime fails: its ARM adapter, or one of its tables. */
type Crash = { scaleSetApi?: (real: ScaleSetApi) => ScaleSetApi; tables?: TableFactory };

/** An inventory table whose N-th row write fails, as a process dying there would. */
class CrashingTable extends EntityTable {
  private writes = 0;
  constructor(client: TableClient, private readonly crashAt: number) {
    super(client);
  }
  override create<P extends Props>(partitionKey: string, rowKey: string, props: P): Promise<Row<P> | undefined> {
    return ++this.writes === this.crashAt ? Promise.reject(new Error('crash')) : super.create(partitionKey, rowKey, props);
  }
}

const crashOnRowWrite = (n: number): Crash => ({
  tables: (name, client) => (name === 'machines' ? new CrashingTable(client, n) : new EntityTable(client)),
});

describe('a crash between the capacity write and the inventory write', () => {
  it.each<{ name: string; crash: Crash }>([
    {
      name: 'right after ARM accepted the new capacity',
      crash: {
        scaleSetApi: (real) => ({
          getScaleSet: (...a) => real.getScaleSet(...a),
          listVms: (...a) => real.listVms(...a),
          deleteInstances: (...a) => real.deleteInstances(...a),
          setCapacity: async (...a) => {
            await real.setCapacity(...a);
            throw new Error('crash');
          },
        }),
      },
    },
    { name: 'before the first new machine is adopted', crash: crashOnRowWrite(1) },
    { name: 'after the first of four new machines is adopted', crash: crashOnRowWrite(2) },
  ])('$name: the next pass neither loses nor doubles a machine', async ({ crash }) => {
    const name = `crash${Math.random().toString(36).slice(2, 8)}`;
    const scaleSet = world.sim.addScaleSet({ resourceGroup: 'rg-crash', name, capacity: 0 });
    const config = { pools: [{ name, scaleSet: { resourceGroup: 'rg-crash', name }, maxCount: 4, chunkSize: 4, creationRate: '0s,1', reconcileRate: '0s,1' }] };
    const healthy = await world.runtime(config);
    const realApi = await healthy.scaleSetApi();
    const crashed = await world.runtime(config, {
      adapters: crash.scaleSetApi ? { scaleSetApi: crash.scaleSetApi(realApi) } : undefined,
      tables: crash.tables,
    });

    const first = await pass(crashed, name);
    expect(first.status).toBe('failed');
    expect(scaleSet.capacity).toBe(4);

    // The next pass may come before or after ARM lists the new VMs: try both.
    await pass(healthy, name);
    await settle();
    await pass(healthy, name);
    expect(scaleSet.capacity).toBe(4);
    const rows = await new InventoryStore(healthy.table('machines'), name, healthy.clock).list();
    expect(rows.map((r) => r.providerId).sort()).toEqual(scaleSet.vms().map((v) => providerIdFromResourceId(v.id)).sort());
  });
});
