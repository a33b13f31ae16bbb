/**
 * The instance cache of one scale set, kept in the `instances` table so every Functions
 * instance shares it: its VMs packed into a few rows and a meta row with the refresh
 * bookkeeping (cache-store.ts). Across invocations a scale set is listed at most once per
 * period: whether a call serves, lists or serves stale is the pure `planRefresh`; to list, an
 * invocation must first win a claim on the meta row (an ETag-guarded write); the others answer
 * from what is stored. A 429 keeps the stored instances and pushes the next refresh out to
 * Retry-After; ARM's remaining budgets slow refreshes down before it refuses. A dry run runs
 * the same plan and executor over a store that writes nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { errorMessage, type Log } from '../log.js';
import { backoff, type EntityTable, type Row } from '../state/entity-table.js';
import type { ScaleSetApi, ScaleSetInfo } from '../azure/scale-set-api.js';
import { RateLimitedError } from '../errors/rate-limited.js';
import { ContentionError } from '../state/errors.js';
import { buildInstances } from './build-instances.js';
import type { CachedInstance, InstanceStatus } from './instance.js';
import type { StatusFlags } from './instance-status.js';
import { listingModeFor } from './orchestration.js';
import { withInstancesStatus, type CacheRead } from './queries.js';
import { packedList } from './pack.js';
import { isExpired, isSettling, lastRefreshAfterSuccess, lastRefreshAfterThrottle, mathRandomInt, type RandomInt } from './refresh-policy.js';
import { planRefresh } from './refresh-plan.js';
import { slowdownFromRateLimit } from './refresh-slowdown.js';
import { readOnlyCacheStore, tableCacheStore, type CacheStore, type MetaProps, type StoredCache } from './cache-store.js';
import { newGeneration } from '../state/generation.js';
import { capText } from '../text/cap.js';

/** How long a claim to refresh holds before another invocation may take over a crashed one. */
export const REFRESH_CLAIM_MS = 60_000;

export type { MetaProps } from './cache-store.js';

export interface ScaleSetCacheOptions {
  /** Partition of this scale set in the `instances` table. */
  key: string;
  resourceGroup: string;
  name: string;
  periodMs: number;
  jitterMs: number;
  flags: StatusFlags & { enableVmssFlexNodes: boolean };
}

export interface ScaleSetCacheDeps {
  table: EntityTable;
  api: ScaleSetApi;
  clock: Clock;
  log: Log;
  /** Who claims refreshes (lease holder id). */
  holder: string;
  random?: RandomInt;
  /** Where the cache is stored; the table's partition `options.key` unless given (a dry run's writes nothing). */
  store?: CacheStore;
}

export interface CacheView {
  read: CacheRead;
  meta: MetaProps;
  /** Whether this call listed the scale set from ARM. */
  listed: boolean;
  /** What the cache held before this call (a VM it last saw Deleting and ARM no longer lists was deleted). */
  previous: readonly CachedInstance[];
  /** When this call listed: the scale set read the list goes with (its capacity is the one to compare the list with). */
  scaleSet?: ScaleSetInfo;
}

export class ScaleSetCache {
  private readonly store: CacheStore;

  constructor(
    private readonly deps: ScaleSetCacheDeps,
    readonly options: ScaleSetCacheOptions,
  ) {
    this.store = deps.store ?? tableCacheStore(deps.table, options.key);
  }

  /**
   * Refreshes if the plan says so (expired, or `scaleSet` shows a capacity the cache does not
   * hold), then answers. Never throws for ARM failures: a failed refresh comes back as
   * `read.ok: false` with the stale list, as the seed's accessors do. `reread`: `scaleSet` is a
   * stored read, good for noticing drift but not for a listing, which reads the scale set again.
   */
  async validate(scaleSet?: ScaleSetInfo, options: { reread?: boolean; metaAbsent?: boolean } = {}): Promise<CacheView> {
    // The caller's point read just found no meta row: nothing stored to read (a first listing).
    const stored = options.metaAbsent ? { meta: undefined, instances: [], rows: [] } : await this.store.load();
    return this.run(stored, scaleSet, { reread: options.reread ?? false, force: false });
  }

  /** `validate` that writes nothing (a dry run): the same plan and executor over a store that writes nothing. */
  async peek(scaleSet: ScaleSetInfo): Promise<CacheView> {
    return new ScaleSetCache({ ...this.deps, store: readOnlyCacheStore(this.store) }, this.options).validate(scaleSet);
  }

  /**
   * Lists now, whatever the period says (the seed's forced update); still one lister at a time,
   * and never under ARM's Retry-After: while throttled it answers what is stored.
   */
  async forceUpdate(scaleSet?: ScaleSetInfo): Promise<CacheView> {
    return this.run(await this.store.load(), scaleSet, { reread: false, force: true });
  }

  /** The meta row alone (one point read): what a warm pass checks before reading anything else. */
  async readMeta(): Promise<Row<MetaProps> | undefined> {
    return this.store.readMeta();
  }

  /** Whether the cache as `meta` describes it is fresh now (no listing due). */
  isFresh(meta: MetaProps): boolean {
    return !isExpired(this.refreshMeta(meta), this.deps.clock.now());
  }

  /** Drops the stored scale set read (after Drover wrote the scale set: its capacity and ETag moved on). */
  async forgetScaleSet(): Promise<void> {
    await this.store.updateMeta((row) => (row ? { ...row.props, scaleSet: undefined, scaleSetReadAt: undefined } : undefined));
  }

  /**
   * Marks instances (Drover deleted or created them) before ARM shows it; the marks stay until
   * the next refresh. They go on the list as stored (a failed refresh left it stale: the marks go
   * on the stale list), written back under the meta row's ETag, and read and marked again when
   * another writer came in between. Nothing stored yet: nothing to mark.
   */
  async setInstancesStatus(providerIds: readonly string[], status: InstanceStatus): Promise<void> {
    let stored = await this.store.load();
    for (let attempt = 1; stored.meta; attempt++) {
      const marked = withInstancesStatus(stored.instances, providerIds, status);
      // A new generation: the next warm pass reads the instances again.
      if (await this.store.writeInstances(stored.meta, { ...stored.meta.props, generation: newGeneration() }, packedList(marked, 'id'), stored)) return;
      if (attempt >= MARK_ATTEMPTS) throw new ContentionError(`instance cache ${this.options.key}`, attempt);
      await backoff(attempt);
      stored = await this.store.load();
    }
  }

  /** Plans and executes one call. */
  private async run(stored: StoredCache, scaleSet: ScaleSetInfo | undefined, how: { reread: boolean; force: boolean }): Promise<CacheView> {
    const now = this.deps.clock.now();
    const plan = planRefresh(stored.meta?.props, stored.instances, scaleSet, now, { ...this.initialMeta(), force: how.force });
    if (plan.kind !== 'list') return this.served(stored);
    return this.refresh(stored, how.reread ? undefined : scaleSet);
  }

  private served(stored: StoredCache): CacheView {
    return { read: { ok: true, instances: stored.instances }, meta: stored.meta?.props ?? this.initialMeta(), listed: false, previous: stored.instances };
  }

  private async refresh(stored: StoredCache, known?: ScaleSetInfo): Promise<CacheView> {
    const { clock, holder } = this.deps;
    const now = clock.now();
    const token = `${holder}:${randomUUID().slice(0, 8)}`;
    const props = stored.meta?.props ?? this.initialMeta();
    // The claim changes the generation: a lister that crashes while listing leaves it changed.
    const claimProps: MetaProps = { ...props, claimedBy: token, claimUntil: now + REFRESH_CLAIM_MS, generation: newGeneration() };
    const claimed = await this.store.writeMeta(stored.meta, claimProps);
    // Another invocation won the claim and is listing: use what is stored (read now when the
    // meta row was absent: its claim is the first thing a lister writes).
    if (!claimed) return this.served(stored.meta ? stored : await this.store.load());

    const listing = await this.list(claimProps, stored.instances, known);
    const next: MetaProps = { ...listing.next, claimedBy: undefined, claimUntil: undefined };
    const written = listing.instances
      ? await this.writeListing(claimed, next, listing.instances, stored, token)
      : await this.store.writeMeta(claimed, next);
    if (!written && !listing.instances) {
      // Someone wrote the meta row while we listed: give up the claim so the next call can list.
      await this.store.updateMeta((row) => (row?.props.claimedBy === token ? { ...row.props, lastError: next.lastError, claimedBy: undefined, claimUntil: undefined } : undefined));
    }
    return { read: listing.read, meta: written?.props ?? next, listed: true, previous: stored.instances, ...(listing.scaleSet ? { scaleSet: listing.scaleSet } : {}) };
  }

  /**
   * Writes a listing under the claim. Another write of the meta row in between (a mark) moved its
   * ETag on: read the partition again and, while the claim is still ours, write the listing over
   * it. A listing that finds the instances as stored writes the meta row alone and keeps the
   * partition's generation: the packs stay, and a pool's warm record still stands.
   */
  private async writeListing(claimed: Row<MetaProps>, next: MetaProps, instances: readonly CachedInstance[], stored: StoredCache, token: string): Promise<Row<MetaProps> | undefined> {
    let meta = claimed;
    let current = stored;
    const packed = packedList(instances, 'id');
    for (let attempt = 1; attempt <= MARK_ATTEMPTS; attempt++) {
      const same = current.packed?.json === packed.json && current.packed.idPrefix === packed.idPrefix;
      const kept = same ? current.meta?.props : undefined;
      const written = kept
        ? await this.store.writeMeta(meta, { ...next, generation: kept.generation, packs: kept.packs, packId: kept.packId })
        : await this.store.writeInstances(meta, next, packed, current);
      if (written) return written;
      current = await this.store.load();
      if (!current.meta || current.meta.props.claimedBy !== token) {
        this.deps.log.info(`instance cache ${this.options.key}: the claim was taken over while listing; this listing is not stored`);
        return undefined;
      }
      meta = current.meta;
    }
    return undefined;
  }

  /** Lists ARM under a claim: the instances (none when the listing failed), what the meta row says next, and the answer. */
  private async list(claimProps: MetaProps, stale: CachedInstance[], known?: ScaleSetInfo): Promise<{ instances?: CachedInstance[]; next: MetaProps; read: CacheRead; scaleSet?: ScaleSetInfo }> {
    const { api, clock, log } = this.deps;
    const { key, resourceGroup, name, flags } = this.options;
    const random = this.deps.random ?? mathRandomInt;
    const base = this.refreshMeta(claimProps);
    try {
      const readAt = clock.now();
      const scaleSet = known ?? (await api.getScaleSet(resourceGroup, name));
      const mode = listingModeFor(name, scaleSet.orchestrationMode, flags.enableVmssFlexNodes);
      if (!mode.ok) throw mode.error;
      const { vms, rateLimit } = await api.listVms(resourceGroup, name, mode.mode);
      const built = buildInstances(vms, stale, flags);
      const unparseable = built.skipped.filter((s) => s.reason !== 'no resource id');
      if (unparseable.length > 0) {
        const shown = unparseable.slice(0, 3).map((s) => `${s.name} (${s.id.slice(0, 120)})`).join(', ');
        log.warn(`instance cache ${key}: ${unparseable.length} VM(s) with a resource id that cannot be parsed, counted as present but not cached: ${shown}${unparseable.length > 3 ? ', …' : ''}`);
      }
      const slowdown = slowdownFromRateLimit(rateLimit, clock.now());
      log.info(`instance cache ${key}: listed ${built.instances.length} VM(s)${slowdown.reason ? `; slowing down: ${slowdown.reason}` : ''}`);
      const next: MetaProps = {
        ...claimProps,
        ...this.initialMeta(),
        lastRefresh: lastRefreshAfterSuccess(base, clock.now(), random, slowdown, built.instances.some(isSettling)),
        orchestrationMode: scaleSet.orchestrationMode,
        capacity: scaleSet.capacity,
        lastError: undefined,
        throttledUntil: undefined,
        slowdown: slowdown.reason ?? undefined,
        refreshes: (claimProps.refreshes ?? 0) + 1,
        generation: newGeneration(),
        scaleSet: JSON.stringify(scaleSet),
        scaleSetReadAt: readAt,
        listedAt: readAt,
        unparseable: unparseable.length || undefined,
      };
      return { instances: built.instances, next, read: { ok: true, instances: built.instances }, scaleSet };
    } catch (err) {
      if (err instanceof RateLimitedError) {
        const lastRefresh = lastRefreshAfterThrottle(base, clock.now(), err.retryAfterMs, random);
        log.warn(`instance cache ${key}: ARM throttled the listing; serving ${stale.length} cached instance(s) until ${new Date(lastRefresh + base.periodMs).toISOString()}`);
        return { next: { ...claimProps, lastRefresh, throttledUntil: clock.now() + err.retryAfterMs, lastError: capText(errorMessage(err)) }, read: { ok: true, instances: stale } };
      }
      log.error(`instance cache ${key}: refresh failed: ${errorMessage(err)}`);
      return { next: { ...claimProps, lastError: capText(errorMessage(err)) }, read: { ok: false, error: err instanceof Error ? err : new Error(String(err)), stale } };
    }
  }

  private refreshMeta(props: MetaProps) {
    return { ...this.initialMeta(), lastRefresh: props.lastRefresh ?? null };
  }

  /** The period and jitter in force (stored on the meta row for `drover status`). */
  private initialMeta(): { periodMs: number; jitterSec: number } {
    return { periodMs: this.options.periodMs, jitterSec: Math.floor(this.options.jitterMs / 1000) };
  }
}

/** How often a write of the packed instances is tried again after another writer came in between. */
const MARK_ATTEMPTS = 12;

/** The stored cache of a scale set, without refreshing it (for `drover status`): one query of its partition. */
export async function peekCache(table: EntityTable, key: string): Promise<{ meta: MetaProps | undefined; instances: CachedInstance[] }> {
  const { meta, instances } = await tableCacheStore(table, key).load();
  return { meta: meta?.props, instances };
}

/** A scale set's partition in the `instances` table. */
export function cacheKey(scaleSet: { resourceGroup: string; name: string }): string {
  // Azure compares both case-insensitively: one partition per scale set, however it is spelled.
  return `${scaleSet.resourceGroup.toLowerCase()}/${scaleSet.name.toLowerCase()}`;
}
