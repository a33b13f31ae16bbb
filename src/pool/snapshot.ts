/**
 * What a pool pass knows, read once: the scale set from ARM, its instance cache (one read of its
 * partition, refreshed when due) and the pool's inventory partition (machines, safety switch,
 * backoff). A dry run reads through `peek`, which lists ARM into memory and writes nothing.
 *
 * A pass first reads the two generations (generation.ts): when nothing was written since the
 * last plan that changed nothing, the cache is fresh and the scale set's capacity and ETag are
 * the same, the partitions are not read at all, and nothing is written (not even the lease).
 * The scale set itself is read from ARM at most once per `scaleSetPeriodMs` by a process (its
 * read remembered in `ScaleSetReads`; a listing's read is stored on the cache's meta row for
 * every instance), and always again when the cache lists: a list and the capacity it is compared
 * with come from the same read.
 */
import type { ScaleSetApi, ScaleSetInfo } from '../azure/scale-set-api.js';
import type { CachedInstance } from '../cache/instance.js';
import { cacheKey, type CacheView, type MetaProps, type ScaleSetCache } from '../cache/scale-set-cache.js';
import type { ScaleSetRead, ScaleSetReads } from './scale-set-reads.js';
import type { EntityTable } from '../state/entity-table.js';
import { RateLimitedError } from '../errors/rate-limited.js';
import { readInventory, type InventorySnapshot } from './inventory.js';
import { readGeneration, stillWarm, warmRecordOf, type WarmRecord } from './generation.js';
import type { ConfigId } from '../config/sequence.js';
import { sameConfig, stampOf } from '../job/config-stamp.js';

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
  cache: Pick<ScaleSetCache, 'validate' | 'peek' | 'readMeta' | 'isFresh'>;
  machines: EntityTable;
  /** This process's recent reads of the scale sets (a pass's GET is remembered there). */
  reads?: ScaleSetReads;
}

type PoolRef = { name: string; scaleSet: { resourceGroup: string; name: string } };

export type PassRead =
  /** Nothing changed since the last plan that changed nothing: its decision stands. */
  | { kind: 'unchanged'; record: WarmRecord }
  /** The pool carries a newer configuration's stamp (`stamp` said so): nothing more read or written. */
  | { kind: 'newer'; stamp: ConfigId }
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

export interface PassReadOptions {
  now: number;
  scaleSetPeriodMs: number;
  /** The period while ARM's rate-limit headers slow the cache's refreshes down (meta `slowdown`). */
  slowedPeriodMs: number;
  freshScaleSet?: boolean;
  /**
   * The pool's configuration stamp (job/config-stamp.ts): `newer` tells whether a newer
   * configuration's stamp leaves the pool alone; a generation row with another stamp is stamped
   * `mine` first thing once the pass writes (the pass's own generation writes carry `mine` too).
   */
  stamp?: { mine: ConfigId; newer(stored: ConfigId | undefined): Promise<ConfigId | undefined>; write(): Promise<void> };
  /** Called once something may have changed, before the pass's first write: it takes the pass's lease. */
  beforeWrite?: () => Promise<void>;
  /** Asked before the partitions are read (not when the pass is warm); false: read nothing more. */
  gate?: () => Promise<boolean>;
  signal?: AbortSignal;
}

/**
 * A pass's read (not a dry run's): two point reads, and the partitions only when something may
 * have changed. Nothing is written until then: a warm pass reads and returns. `freshScaleSet`:
 * read the scale set from ARM whatever is known (a write needs its ETag).
 * @throws the cache's refresh error when the VMs could not be listed.
 */
export async function readPass(sources: SnapshotSources, pool: PoolRef, options: PassReadOptions): Promise<PassRead> {
  const { cache, machines } = sources;
  const [meta, generation] = await Promise.all([cache.readMeta(), readGeneration(machines, pool.name)]);
  const stamped = stampOf(generation?.props);
  const newer = await options.stamp?.newer(stamped);
  if (newer !== undefined) return { kind: 'newer', stamp: newer };
  const { scaleSet, stored } = await scaleSetFor(sources, pool, meta?.props, options);
  const record = warmRecordOf(generation);
  const warm = {
    inventory: generation?.props.generation,
    cache: meta?.props.generation,
    capacity: scaleSet.capacity,
    etag: scaleSet.etag,
    cacheFresh: meta !== undefined && cache.isFresh(meta.props),
    now: options.now,
  };
  const restamp = options.stamp !== undefined && !sameConfig(stamped, options.stamp.mine);
  if (!restamp && stillWarm(record, warm)) return { kind: 'unchanged', record };
  await options.beforeWrite?.();
  // Stamped before anything else is written, so an older configuration's host sees it first. A
  // pool with no generation row yet gets the stamp with the pass's first generation write.
  if (restamp && generation !== undefined) await options.stamp!.write();
  if (options.gate && !(await options.gate())) return { kind: 'gated' };

  const validate = () => cache.validate(scaleSet, { reread: stored, metaAbsent: meta === undefined });
  // A fresh cache is served: read both at once. An expired one lists first, and when the listing
  // found the VMs as stored (the cache's generation kept), the pass is warm after all.
  const [view, read] = warm.cacheFresh ? await Promise.all([validate(), readInventory(machines, pool.name)]) : [await validate(), undefined];
  if (!view.read.ok) throw view.read.error;
  const listed = view.scaleSet ?? scaleSet;
  if (!read && !restamp && stillWarm(record, { ...warm, cache: view.meta.generation, capacity: listed.capacity, etag: listed.etag, cacheFresh: true })) return { kind: 'unchanged', record };
  const inventory = read ?? (await readInventory(machines, pool.name));
  return {
    kind: 'snapshot',
    snapshot: { scaleSet: listed, instances: view.read.instances, previous: view.previous, inventory, listedAt: view.meta.listedAt },
    stored: stored && view.scaleSet === undefined,
    cacheGeneration: view.meta.generation,
  };
}

/**
 * The scale set for a pass: the newest read within its period, the one stored on the meta row
 * (by the last listing) or this process's own (`stored`: not read in this pass), else a GET.
 */
async function scaleSetFor(sources: SnapshotSources, pool: PoolRef, meta: MetaProps | undefined, options: PassReadOptions): Promise<{ scaleSet: ScaleSetInfo; stored: boolean }> {
  const key = cacheKey(pool.scaleSet);
  const known = (periodMs: number) => newest(storedRead(meta, options.now, periodMs), sources.reads?.recent(key, options.now, periodMs));
  const recent = options.freshScaleSet ? undefined : known(meta?.slowdown ? options.slowedPeriodMs : options.scaleSetPeriodMs);
  if (recent) return { scaleSet: recent.scaleSet, stored: true };
  try {
    const scaleSet = await sources.api.getScaleSet(pool.scaleSet.resourceGroup, pool.scaleSet.name, { abortSignal: options.signal });
    sources.reads?.remember(key, scaleSet, options.now);
    return { scaleSet, stored: false };
  } catch (err) {
    // A 429 on the GET is served like one on the listing: from the last read, however old (a
    // write under its ETag is still guarded by If-Match). Without one, the pass fails.
    const last = err instanceof RateLimitedError ? known(Number.POSITIVE_INFINITY) : undefined;
    if (!last) throw err;
    return { scaleSet: last.scaleSet, stored: true };
  }
}

function newest(a: ScaleSetRead | undefined, b: ScaleSetRead | undefined): ScaleSetRead | undefined {
  if (!a || !b) return a ?? b;
  return a.readAt >= b.readAt ? a : b;
}

/** The scale set as the last listing stored it on the meta row, while that read is recent enough. */
function storedRead(meta: MetaProps | undefined, now: number, periodMs: number): ScaleSetRead | undefined {
  if (!meta?.scaleSet || meta.scaleSetReadAt === undefined || !(meta.scaleSetReadAt + periodMs > now)) return undefined;
  return { scaleSet: JSON.parse(meta.scaleSet) as ScaleSetInfo, readAt: meta.scaleSetReadAt };
}
