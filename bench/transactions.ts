/**
 * Batched writes on Azurite (in its own process, so only Drover's side counts): CPU per entity
 * of `writeChanged` upserting 1,000 rows of one partition (10 batches of 100, written by
 * src/state/batch.ts and sent through the TableClient's pipeline), against the same rows through
 * the SDK's `submitTransaction` (what Drover used before), and against building the same
 * sub-requests bare (start line, headers, JSON body): the floor of any batch, besides the one
 * HTTP request per batch that every path sends.
 */
import { randomBytes } from 'node:crypto';
import type { TransactionAction } from '@azure/data-tables';
import { startAzurite } from '../sim/azurite.js';
import { createStorage } from '../src/state/storage.js';
import { EntityTable, toEntity } from '../src/state/entity-table.js';
import type { Benchmark, Figure } from './index.js';

const ROWS = 1_000;
const ROUNDS = 5;

async function run(): Promise<Figure[]> {
  const azurite = await startAzurite();
  try {
    const storage = createStorage({ kind: 'connection', connectionString: azurite.connectionString }, `b${randomBytes(4).toString('hex')}`);
    await storage.ensure();
    const table = new EntityTable(storage.table('instances'));
    const desired = (round: number) =>
      Array.from({ length: ROWS }, (_, i) => ({
        rowKey: `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/${i}`,
        props: { name: `vmss_${i}`, state: round % 2 ? 'Running' : 'Creating', powerState: 'PowerState/running' },
      }));
    await table.writeChanged('rg/vmss', desired(1), []); // warm-up: connections, JIT
    let cpuUs = 0;
    let wallMs = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const rows = desired(round);
      const start = process.cpuUsage();
      const t0 = performance.now();
      await table.writeChanged('rg/vmss', rows, []);
      wallMs += performance.now() - t0;
      const used = process.cpuUsage(start);
      cpuUs += used.user + used.system;
    }
    const sdkUs = await sdkTransactionUsPerEntity(table, desired);
    const handUs = handSerialisedUsPerEntity(table.client.url, table.client.tableName, desired(0));
    const writerUs = cpuUs / ROUNDS / ROWS;
    return [
      { label: `writeChanged, ${ROWS} upserts in batches of 100 (Drover's batch writer)`, value: writerUs, unit: 'µs CPU/entity' },
      { label: 'wall time per entity (Azurite included)', value: (wallMs * 1000) / ROUNDS / ROWS, unit: 'µs/entity' },
      { label: "the same rows through the SDK's submitTransaction (before the batch writer)", value: sdkUs, unit: 'µs CPU/entity' },
      { label: 'the same sub-requests built bare (the floor)', value: handUs, unit: 'µs CPU/entity' },
      { label: 'batch writer / floor', value: writerUs / handUs, unit: '×' },
      { label: 'submitTransaction / batch writer', value: sdkUs / writerUs, unit: '×' },
    ];
  } finally {
    await azurite.stop();
  }
}

/** CPU per entity of the same upserts through the SDK's own transactions, 100 at a time. */
async function sdkTransactionUsPerEntity(table: EntityTable, desired: (round: number) => { rowKey: string; props: Record<string, string> }[]): Promise<number> {
  let cpuUs = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const rows = desired(round);
    const start = process.cpuUsage();
    for (let i = 0; i < rows.length; i += 100) {
      await table.client.submitTransaction(rows.slice(i, i + 100).map((r): TransactionAction => ['upsert', toEntity('rg/vmss', r.rowKey, r.props), 'Replace']));
    }
    const used = process.cpuUsage(start);
    cpuUs += used.user + used.system;
  }
  return cpuUs / ROUNDS / ROWS;
}

/** The changeset part of each upsert as the SDK writes it, built directly. */
function handSerialisedUsPerEntity(url: string, tableName: string, rows: { rowKey: string; props: Record<string, string> }[]): number {
  const base = `${url.replace(/\/$/, '')}/${tableName}`;
  const quote = (key: string) => encodeURIComponent(key.replace(/'/g, "''"));
  let bytes = 0;
  const start = process.cpuUsage();
  for (let round = 0; round < 50; round++) {
    for (const row of rows) {
      const entity = toEntity('rg/vmss', row.rowKey, row.props);
      const part = [
        '--changeset_00000000-0000-0000-0000-000000000000',
        'content-type: application/http',
        'content-transfer-encoding: binary',
        '',
        `PUT ${base}(PartitionKey='${quote(entity.partitionKey)}',RowKey='${quote(entity.rowKey)}') HTTP/1.1`,
        'content-type: application/json',
        'accept: application/json',
        'dataserviceversion: 3.0',
        '',
        JSON.stringify(entity),
      ].join('\r\n');
      bytes += part.length;
    }
  }
  const used = process.cpuUsage(start);
  if (bytes === 0) throw new Error('nothing serialised');
  return (used.user + used.system) / 50 / rows.length;
}

const benchmark: Benchmark = { name: 'transactions', description: 'batched Table writes on Azurite (Drover side only)', run };
export default benchmark;
