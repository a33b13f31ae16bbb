/**
 * What a pool pass knows, read once: the scale set from ARM, its instance cache (one read of its
 * partition, refreshed when due) and the pool's inventory partition (machines, safety switch,
 * backoff). A dry run reads through `peek`, which lists ARM into memory and writes nothing.
 *
 * A pass first reads the two generations (generation.ts): when nothing was written since the
 * last plan that changed nothing, the cache is fresh and the scale set's capacity and ETag are
 * the same, the partitions are not read at all. The scale set itself is read from ARM at most
 * once per `scaleSetPeriodMs` (the read is stored on the cache's meta row and shared by every
 * instance), and always again when the cache lists: a list and the capacity it is compared with
 * come from the same read.
 */
import type { ScaleSetApi, ScaleSetInfo } from '../azure/scale-set-api.js';
import type { CachedInstance } from '../cache/instance.js';
import type { CacheView, MetaProps, ScaleSetCache } from '../cache/scale-set-cache.js';
import type { EntityTable, Row } from '../state/entity-table.js';
import { RateLimitedError } from '../errors/rate-limited.js';
import { readInventory, type InventorySnapshot } from './inventory.js';
import { readGeneration, stillWarm, warmRecordOf, type GenerationProps, type WarmRecord } from './generation.js';

export interface PoolSnapshot {
  scaleSet: ScaleSetInfo;
  /** The instances as the cache has them for this pass. */
  instances: readonly CachedInstance[];
  /** What the cache held before this pass refreshed it (how churn knows a VM was seen Deleting). */
  previous: readonly CachedInstance[];
  /** When the listing the instances come from was started (epoch ms), when known. */
  listedAt?: number;
  inventory: InventorySnapshot;
}

export interface SnapshotSources {
  api: Pick<ScaleSetApi, 'getScaleSet'>;
  cache: Pick<ScaleSetCache, 'validate' | 'peek' | 'readMeta' | 'isFresh' | 'recordScaleSet'>;
  machines: EntityTable;
}

type PoolRef = { name: string; scaleSet: { resourceGroup: string; name: string } };

export type PassRead =
  /** Nothing changed since the last plan that changed nothing: its decision stands. */
  | { kind: 'unchanged'; record: WarmRecord }
  /** The pool carries a newer configuration's stamp (`stamp` said so): nothing more read or written. */
  | { kind: 'newer'; seq: number }
  /** Something may have changed, but `gate` said not now (the pool's reconcile rate). */
  | { kind: 'gated' }
  | {
      kind: 'snapshot';
      snapshot: PoolSnapshot;
      /** The scale set came from a stored read, not from ARM in this pass (a write needs a fresh ETag). */
      stored: boolean;
      /** The cache's generation the snapshot goes with. */
      cacheGeneration: number | undefined;
    };

/** @throws the cache's refresh error when the VMs could not be listed (nothing is decided on a stale list). */
export async function readSnapshot(
  sources: SnapshotSources,
  pool: PoolRef,
  options: { dryRun: boolean; signal?: AbortSignal },
): Promise<PoolSnapshot> {
  const scaleSet = await sources.api.getScaleSet(pool.scaleSet.resourceGroup, pool.scaleSet.name, { abortSignal: options.signal });
  const [view, inventory]: [CacheView, InventorySnapshot] = await Promise.all([
    options.dryRun ? sources.cache.peek(scaleSet) : sources.cache.validate(scaleSet),
    readInventory(sources.machines, pool.name),
  ]);
  if (!view.read.ok) throw view.read.error;
  return { scaleSet, instances: view.read.instances, previous: view.previous, inventory, listedAt: view.meta.listedAt };
}

/**
 * A pass's read (not a dry run's): two point reads, and the partitions only when something may
 * have changed. `freshScaleSet`: read the scale set from ARM whatever is stored (a write needs its ETag).
 * @throws the cache's refresh error when the VMs could not be listed.
 */
export async function readPass(
  sources: SnapshotSources,
  pool: PoolRef,
  options: {
    now: number;
    scaleSetPeriodMs: number;
    /** The period while ARM's rate-limit headers slow the cache's refreshes down (meta `slowdown`). */
    slowedPeriodMs: number;
    freshScaleSet?: boolean;
    /** Asked before the partitions are read (not when the pass is warm); false: read nothing more. */
    gate?: () => Promise<boolean>;
    /** Given the generation row before anything is written: a newer configuration's sequence, to leave the pool alone. */
    stamp?: (generation: Row<GenerationProps> | undefined) => Promise<number | undefined>;
    signal?: AbortSignal;
  },
): Promise<PassRead> {
  const { cache, machines, api } = sources;
  const [meta, generation] = await Promise.all([cache.readMeta(), readGeneration(machines, pool.name)]);
  const newer = await options.stamp?.(generation);
  if (newer !== undefined) return { kind: 'newer', seq: newer };
  let scaleSet = options.freshScaleSet ? undefined : storedScaleSet(meta?.props, options.now, meta?.props.slowdown ? options.slowedPeriodMs : options.scaleSetPeriodMs);
  let stored = scaleSet !== undefined;
  if (!scaleSet) {
    try {
      scaleSet = await api.getScaleSet(pool.scaleSet.resourceGroup, pool.scaleSet.name, { abortSignal: options.signal });
      await cache.recordScaleSet(meta, scaleSet, options.now);
    } catch (err) {
      // A 429 on the GET is served like one on the listing: from the stored read, however old
      // (a write under its ETag is still guarded by If-Match). Without one, the pass fails.
      scaleSet = err instanceof RateLimitedError ? storedScaleSet(meta?.props, options.now, Number.POSITIVE_INFINITY) : undefined;
      if (!scaleSet) throw err;
      stored = true;
    }
  }
  const record = warmRecordOf(generation);
  const warm = {
    inventory: generation?.props.generation,
    cache: meta?.props.generation,
    capacity: scaleSet.capacity,
    etag: scaleSet.etag,
    cacheFresh: meta !== undefined && cache.isFresh(meta.props),
    now: options.now,
  };
  if (stillWarm(record, warm)) return { kind: 'unchanged', record };
  if (options.gate && !(await options.gate())) return { kind: 'gated' };

  const [view, inventory] = await Promise.all([cache.validate(scaleSet, { reread: stored, metaAbsent: meta === undefined }), readInventory(machines, pool.name)]);
  if (!view.read.ok) throw view.read.error;
  return {
    kind: 'snapshot',
    snapshot: { scaleSet: view.scaleSet ?? scaleSet, instances: view.read.instances, previous: view.previous, inventory, listedAt: view.meta.listedAt },
    stored: stored && view.scaleSet === undefined,
    cacheGeneration: view.meta.generation,
  };
}

/** The scale set as stored on the meta row, while its read is recent enough. */
function storedScaleSet(meta: MetaProps | undefined, now: number, periodMs: number): ScaleSetInfo | undefined {
  if (!meta?.scaleSet || meta.scaleSetReadAt === undefined || !(meta.scaleSetReadAt + periodMs > now)) return undefined;
  return JSON.parse(meta.scaleSet) as ScaleSetInfo;
}
