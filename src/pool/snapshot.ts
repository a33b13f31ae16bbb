/**
 * What a pool pass knows, read once: the scale set from ARM, its instance cache (one read of its
 * partition, refreshed when due) and the pool's inventory partition (machines, safety switch,
 * backoff). A dry run reads through `peek`, which lists ARM into memory and writes nothing.
 */
import type { ScaleSetApi, ScaleSetInfo } from '../azure/scale-set-api.js';
import type { CachedInstance } from '../cache/instance.js';
import type { CacheView, ScaleSetCache } from '../cache/scale-set-cache.js';
import type { EntityTable } from '../state/entity-table.js';
import { readInventory, type InventorySnapshot } from './inventory.js';

export interface PoolSnapshot {
  scaleSet: ScaleSetInfo;
  /** The instances as the cache has them for this pass. */
  instances: readonly CachedInstance[];
  /** What the cache held before this pass refreshed it (how churn knows a VM was seen Deleting). */
  previous: readonly CachedInstance[];
  inventory: InventorySnapshot;
}

export interface SnapshotSources {
  api: Pick<ScaleSetApi, 'getScaleSet'>;
  cache: Pick<ScaleSetCache, 'validate' | 'peek'>;
  machines: EntityTable;
}

/** @throws the cache's refresh error when the VMs could not be listed (nothing is decided on a stale list). */
export async function readSnapshot(
  sources: SnapshotSources,
  pool: { name: string; scaleSet: { resourceGroup: string; name: string } },
  options: { dryRun: boolean; signal?: AbortSignal },
): Promise<PoolSnapshot> {
  const scaleSet = await sources.api.getScaleSet(pool.scaleSet.resourceGroup, pool.scaleSet.name, { abortSignal: options.signal });
  const [view, inventory]: [CacheView, InventorySnapshot] = await Promise.all([
    options.dryRun ? sources.cache.peek(scaleSet) : sources.cache.validate(scaleSet),
    readInventory(sources.machines, pool.name),
  ]);
  if (!view.read.ok) throw view.read.error;
  return { scaleSet, instances: view.read.instances, previous: view.previous, inventory };
}
