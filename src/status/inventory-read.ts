/**
 * A pool's inventory as `drover status` reads it: its partition (the pool's bookkeeping rows
 * and the machines' pack rows, or one row per machine in the old format) in pages with a
 * deadline each, read again when it raced a writer (pack rows of two writes).
 */
import { PackMismatchError } from '../cache/pack.js';
import { inventoryFromRows, type InventorySnapshot } from '../pool/inventory.js';
import type { EntityTable } from '../state/entity-table.js';
import { listPartitionPaged, type PagedListOptions } from './paged-list.js';

const READ_ATTEMPTS = 3;

export async function readInventoryView(table: EntityTable, pool: string, options: PagedListOptions = {}): Promise<InventorySnapshot> {
  for (let attempt = 1; ; attempt++) {
    try {
      return inventoryFromRows(await listPartitionPaged(table, pool, options), pool);
    } catch (err) {
      if (!(err instanceof PackMismatchError) || attempt >= READ_ATTEMPTS) throw err;
    }
  }
}
