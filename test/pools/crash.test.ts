import { describe, expect, it } from 'vitest';
import { reconcileObject } from '../../src/reconcile/object.js';
import { silentLog } from '../../src/log.js';
import { readInventory } from '../../src/pool/inventory.js';
import type { ScaleSetApi } from '../../src/azure/scale-set-api.js';
import type { TableClient } from '@azure/data-tables';
import type { PipelineRequest, SendRequest } from '@azure/core-rest-pipeline';
import type { Runtime, TableFactory } from '../../src/runtime/runtime.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { armWorldPerFile } from '../support/arm.js';
import { providerIdFromResourceId } from '../../src/cache/ids.js';

const world = armWorldPerFile();

const pass = (rt: Runtime, name: string) => reconcileObject(rt, { kind: 'pool', name }, { reason: 'test' }, { log: silentLog });
const settle = () => new Promise((r) => setTimeout(r, 120));

/** Where the crashing runtime fails: its ARM adapter, or one of its tables. */
type Crash = { scaleSetApi?: (real: ScaleSetApi) => ScaleSetApi; tables?: TableFactory };

/**
 * The process dies at the adoption of the new machines: its inventory batch (the pack of the
 * machines, written whole) fails, `landed`: after the service wrote it (the answer is lost), or
 * before. The crashing runtime is built with this `machines` client, whose pipeline refuses the
 * `$batch` requests: nothing of Drover's is patched.
 */
const crashAtAdoption = (landed: boolean): Crash => {
  const dying = (client: TableClient): TableClient => {
    client.pipeline.addPolicy({
      name: 'crashAtAdoption',
      sendRequest: async (request: PipelineRequest, next: SendRequest) => {
        if (!request.url.endsWith('$batch')) return next(request);
        if (landed) await next(request);
        throw new Error('crash');
      },
    });
    return client;
  };
  return { tables: (name, client) => new EntityTable(name === 'machines' ? dying(client) : client) };
};

describe('a crash between the capacity write and the inventory write', () => {
  it.each<{ name: string; crash: Crash }>([
    {
      name: 'right after ARM accepted the new capacity',
      crash: {
        scaleSetApi: (real) => ({
          getScaleSet: (...a) => real.getScaleSet(...a),
          listVms: (...a) => real.listVms(...a),
          deleteInstances: (...a) => real.deleteInstances(...a),
          setPower: (...a) => real.setPower(...a),
          setCapacity: async (...a) => {
            await real.setCapacity(...a);
            throw new Error('crash');
          },
        }),
      },
    },
    { name: 'before the new machines are adopted', crash: crashAtAdoption(false) },
    { name: 'after the adoption landed, before its answer came back', crash: crashAtAdoption(true) },
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
    const { rows } = await readInventory(healthy.table('machines'), name);
    expect(rows.map((r) => r.rowKey).sort()).toEqual(scaleSet.vms().map((v) => providerIdFromResourceId(v.id)).sort());
  });
});
