import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { createRuntime, type TableFactory } from '../../src/runtime/runtime.js';
import { EntityTable } from '../../src/state/entity-table.js';
import type { TableName } from '../../src/state/storage.js';

const config = parseConfig({ storage: { connection: 'UseDevelopmentStorage=true', prefix: 'unit' } });

describe('the composition root', () => {
  it('builds every table helper through the table factory it is given, once per table', async () => {
    const built: TableName[] = [];
    const tables: TableFactory = (name, client) => {
      built.push(name);
      return new EntityTable(client);
    };
    const rt = await createRuntime({ config, configFile: 'inline', env: {}, tables });
    const machines = rt.table('machines');
    expect(rt.table('machines')).toBe(machines);
    expect(built.filter((n) => n === 'machines')).toEqual(['machines']);
    expect(machines.client.tableName).toBe('unitmachines');
  });

  it('hands the async probe its own tables, the queues and the clock, and no runtime', async () => {
    const rt = await createRuntime({ config, configFile: 'inline', env: {} });
    expect(rt.probeStores.probes).toBe(rt.table('probes'));
    expect(rt.probeStores.targetRows).toBe(rt.table('targets'));
    expect(rt.probeStores.queues).toBe(rt.queues);
    expect(rt.probeStores.clock).toBe(rt.clock);
    expect(Object.keys(rt.probeStores).sort()).toEqual(['clock', 'probes', 'queues', 'targetRows', 'targets']);
  });
});
