/**
 * A scale set's instance cache as `drover status` reads it: point reads of the meta row and of
 * the pack rows it names (two reads at once for 1,000 VMs), never a query of the partition, which in
 * the old one-row-per-VM format held a row per VM. A partition still in the old format (not
 * listed since the packed cache came) is read as it is, in pages.
 */
import { META, type MetaProps } from '../cache/cache-store.js';
import type { CachedInstance } from '../cache/instance.js';
import { packRowKey, PackMismatchError, unpackInstances } from '../cache/pack.js';
import { instanceFromRow, type InstanceProps } from '../cache/rows.js';
import { isPackRowKey } from '../cache/pack.js';
import type { EntityTable, Row } from '../state/entity-table.js';
import { listPartitionPaged, type PagedListOptions } from './paged-list.js';

/** A read that raced a listing (packs of another write than the meta row's) reads again, this often. */
const READ_ATTEMPTS = 3;

export interface CacheView {
  meta: MetaProps | undefined;
  instances: CachedInstance[];
}

export async function readCacheView(table: EntityTable, key: string, options: PagedListOptions = {}): Promise<CacheView> {
  for (let attempt = 1; ; attempt++) {
    // The first pack row is read with the meta row: one round trip for a cache of one pack (up to ~3,500 VMs).
    const [meta, head] = await Promise.all([table.get<MetaProps>(key, META), table.get(key, packRowKey(0))]);
    const { packs, packId } = meta?.props ?? {};
    if (!meta || packs === undefined || packId === undefined) return { meta: meta?.props, instances: meta ? await oldFormat(table, key, options) : [] };
    const rest = await Promise.all(Array.from({ length: Math.max(0, packs - 1) }, (_, i) => table.get(key, packRowKey(i + 1))));
    try {
      return { meta: meta.props, instances: unpackInstances([head, ...rest].filter((r): r is Row => r !== undefined), packId, packs) };
    } catch (err) {
      if (!(err instanceof PackMismatchError) || attempt >= READ_ATTEMPTS) throw err;
    }
  }
}

async function oldFormat(table: EntityTable, key: string, options: PagedListOptions): Promise<CachedInstance[]> {
  const rows = await listPartitionPaged<InstanceProps>(table, key, options);
  return rows.filter((r) => r.rowKey !== META && !isPackRowKey(r.rowKey)).map(instanceFromRow);
}
