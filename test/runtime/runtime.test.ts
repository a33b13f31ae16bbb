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

  it('names the tables by what they hold, and hands the async probe its tables, the queues and the clock', async () => {
    const rt = await createRuntime({ config, configFile: 'inline', env: {} });
    expect(rt.stores.targetRecords).toBe(rt.table('targets'));
    expect(rt.stores.samples).toBe(rt.table('samples'));
    expect(rt.stores.inventory).toBe(rt.table('machines'));
    expect(rt.stores.instances).toBe(rt.table('instances'));
    expect(rt.stores.probe.probes).toBe(rt.table('probes'));
    expect(rt.stores.probe.targetRows).toBe(rt.table('targets'));
    expect(rt.stores.probe.queues).toBe(rt.queues);
    expect(rt.stores.probe.clock).toBe(rt.clock);
    expect(rt.stores.probe.targets).toBe(rt.config.targets);
  });
});
