/**
 * The instance cache of one scale set, kept in the `instances` table so every Functions
 * instance shares it: one row per VM and a meta row with the refresh bookkeeping. Across
 * invocations a scale set is listed at most once per period: an invocation that finds the
 * cache expired must first win a claim on the meta row (an ETag-guarded write); the others
 * answer from what is stored. A 429 keeps the stored instances and pushes the next refresh
 * out to Retry-After; ARM's remaining budgets slow refreshes down before it refuses.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { errorMessage, type Log } from '../log.js';
import type { EntityTable, Row } from '../state/entity-table.js';
import type { ScaleSetApi, ScaleSetInfo } from '../azure/scale-set-api.js';
import { RateLimitedError } from '../errors/rate-limited.js';
import { buildInstances } from './build-instances.js';
import type { CachedInstance, InstanceState, InstanceStatus } from './instance.js';
import type { StatusFlags } from './instance-status.js';
import { listingModeFor } from './orchestration.js';
import {
  lookupCacheSize,
  lookupInstance,
  lookupInstancesByState,
  withInstancesStatus,
  type CacheRead,
  type InstanceLookup,
} from './queries.js';
import {
  isExpired,
  lastRefreshAfterInvalidate,
  lastRefreshAfterSuccess,
  lastRefreshAfterThrottle,
  mathRandomInt,
  type RandomInt,
} from './refresh-policy.js';
import { slowdownFromRateLimit } from './refresh-slowdown.js';
import { instanceFromRow, instanceToProps, type InstanceProps } from './rows.js';
import { newGeneration } from '../state/generation.js';
import { capText } from '../text/cap.js';

const META = '~meta';

/** How long a claim to refresh holds before another invocation may take over a crashed one. */
export const REFRESH_CLAIM_MS = 60_000;

export type MetaProps = {
  /** Epoch ms; absent = never refreshed. */
  lastRefresh?: number;
  periodMs: number;
  jitterSec: number;
  orchestrationMode?: string;
  capacity?: number;
  claimedBy?: string;
  claimUntil?: number;
  lastError?: string;
  throttledUntil?: number;
  slowdown?: string;
  refreshes?: number;
  /** Changed by every write to the partition's rows (pool/generation.ts). */
  generation?: number;
  /** The scale set as last read from ARM (JSON of `ScaleSetInfo`) and when: shared by every instance. */
  scaleSet?: string;
  scaleSetReadAt?: number;
  /**
   * VMs of the last listing whose resource id could not be parsed: not cached, but present in
   * ARM's capacity, so they count towards it (else every pass would see drift and list again).
   */
  unparseable?: number;
};

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
  constructor(
    private readonly deps: ScaleSetCacheDeps,
    readonly options: ScaleSetCacheOptions,
  ) {}

  /**
   * Refreshes if expired (or if `scaleSet` shows a capacity the cache does not hold), then
   * answers. Never throws for ARM failures: a failed refresh comes back as `read.ok: false`
   * with the stale list, as the seed's accessors do. `reread`: `scaleSet` is a stored read, good
   * for noticing drift but not for a listing, which reads the scale set again.
   */
  async validate(scaleSet?: ScaleSetInfo, options: { reread?: boolean } = {}): Promise<CacheView> {
    const { meta, rows } = await this.load();
    const instances = rows.map(instanceFromRow);
    const now = this.deps.clock.now();
    // ARM lowers the capacity as soon as a delete is accepted, so VMs being deleted do not count.
    const present = instances.filter((i) => i.state !== 'Deleting').length + (meta.props.unparseable ?? 0);
    const capacityDrift = scaleSet?.capacity !== undefined && scaleSet.capacity !== present && !this.throttled(meta.props, now);
    if (!isExpired(this.refreshMeta(meta.props), now) && !capacityDrift) {
      return { read: { ok: true, instances }, meta: meta.props, listed: false, previous: instances };
    }
    return this.refresh(meta, rows, instances, options.reread ? undefined : scaleSet);
  }

  /** The meta row alone (one point read): what a warm pass checks before reading anything else. */
  async readMeta(): Promise<Row<MetaProps> | undefined> {
    return this.deps.table.get<MetaProps>(this.options.key, META);
  }

  /** Whether the cache as `meta` describes it is fresh now (no listing due). */
  isFresh(meta: MetaProps): boolean {
    return !isExpired(this.refreshMeta(meta), this.deps.clock.now());
  }

  /**
   * Stores a scale set read on the meta row for the other passes (best effort: under the ETag
   * it was read with; a writer in between wins). Not a write to the rows: the generation stays.
   */
  async recordScaleSet(meta: Row<MetaProps> | undefined, scaleSet: ScaleSetInfo, readAt: number): Promise<void> {
    if (!meta) return; // Never listed: the first listing records it.
    await this.deps.table.replaceIf(meta, { ...meta.props, scaleSet: JSON.stringify(scaleSet), scaleSetReadAt: readAt });
  }

  /** Drops the stored scale set read (after Drover wrote the scale set: its capacity and ETag moved on). */
  async forgetScaleSet(): Promise<void> {
    await this.deps.table.update<MetaProps>(this.options.key, META, (row) => (row ? { ...row.props, scaleSet: undefined, scaleSetReadAt: undefined } : undefined));
  }

  /**
   * `validate` that writes nothing (a dry run): a due refresh lists ARM into memory only, as a
   * throwaway cache would, and the stored rows stay as they are.
   */
  async peek(scaleSet: ScaleSetInfo): Promise<CacheView> {
    const { meta, rows } = await this.load();
    const previous = rows.map(instanceFromRow);
    const present = previous.filter((i) => i.state !== 'Deleting').length;
    const drift = scaleSet.capacity !== undefined && scaleSet.capacity !== present;
    if (!isExpired(this.refreshMeta(meta.props), this.deps.clock.now()) && !drift) {
      return { read: { ok: true, instances: previous }, meta: meta.props, listed: false, previous };
    }
    const { resourceGroup, name, flags } = this.options;
    try {
      const mode = listingModeFor(name, scaleSet.orchestrationMode, flags.enableVmssFlexNodes);
      if (!mode.ok) throw mode.error;
      const built = buildInstances((await this.deps.api.listVms(resourceGroup, name, mode.mode)).vms, previous, flags);
      return { read: { ok: true, instances: built.instances }, meta: meta.props, listed: true, previous };
    } catch (err) {
      return { read: { ok: false, error: err instanceof Error ? err : new Error(String(err)), stale: previous }, meta: meta.props, listed: true, previous };
    }
  }

  /**
   * Lists now, whatever the period says (the seed's forced update); still one lister at a time,
   * and never under ARM's Retry-After: while throttled it answers what is stored.
   */
  async forceUpdate(scaleSet?: ScaleSetInfo): Promise<CacheView> {
    const { meta, rows } = await this.load();
    const instances = rows.map(instanceFromRow);
    if (this.throttled(meta.props, this.deps.clock.now())) return { read: { ok: true, instances }, meta: meta.props, listed: false, previous: instances };
    return this.refresh(meta, rows, instances, scaleSet);
  }

  /** Makes the next validate list again. */
  async invalidate(): Promise<void> {
    await this.deps.table.update<MetaProps>(this.options.key, META, (row) => {
      const props = row?.props ?? this.initialMeta();
      return { ...props, lastRefresh: lastRefreshAfterInvalidate(this.refreshMeta(props), this.deps.clock.now()), generation: newGeneration() };
    });
    this.deps.log.info(`instance cache ${this.options.key}: invalidated`);
  }

  async getInstanceByProviderId(providerId: string): Promise<InstanceLookup> {
    return lookupInstance((await this.validate()).read, providerId);
  }

  async getInstancesByState(state: InstanceState) {
    return lookupInstancesByState((await this.validate()).read, state);
  }

  async size() {
    return lookupCacheSize((await this.validate()).read);
  }

  /**
   * Marks an instance (Drover deleted or created it) before ARM shows it; the mark stays
   * until the next refresh. Refresh errors are not surfaced: the mark goes on the stale row.
   */
  async setInstanceStatus(providerId: string, status: InstanceStatus): Promise<void> {
    await this.setInstancesStatus([providerId], status);
  }

  /** `setInstanceStatus` for several instances: one validation, one batched write. */
  async setInstancesStatus(providerIds: readonly string[], status: InstanceStatus): Promise<void> {
    const view = await this.validate();
    const instances = withInstancesStatus(view.read.ok ? view.read.instances : view.read.stale, providerIds, status);
    // The generation first: a crash between the two still makes the next warm pass read the rows.
    await this.deps.table.update<MetaProps>(this.options.key, META, (row) => ({ ...(row?.props ?? this.initialMeta()), generation: newGeneration() }));
    const { rows } = await this.load();
    const marked = new Set(providerIds);
    await this.deps.table.writeChanged(
      this.options.key,
      instances.filter((i) => marked.has(i.id)).map((i) => ({ rowKey: i.id, props: instanceToProps(i) })),
      rows,
    );
  }

  private async refresh(meta: Row<MetaProps>, rows: Row<InstanceProps>[], stale: CachedInstance[], known?: ScaleSetInfo): Promise<CacheView> {
    const { table, api, clock, log, holder } = this.deps;
    const { key, resourceGroup, name, flags } = this.options;
    const now = clock.now();
    if (meta.props.claimedBy && (meta.props.claimUntil ?? 0) > now) {
      // Someone (maybe another invocation in this very process) is listing: use what is stored.
      return { read: { ok: true, instances: stale }, meta: meta.props, listed: false, previous: stale };
    }
    const token = `${holder}:${randomUUID().slice(0, 8)}`;
    // The claim changes the generation: a lister that crashes after writing rows leaves it changed.
    const claimProps: MetaProps = { ...meta.props, claimedBy: token, claimUntil: now + REFRESH_CLAIM_MS, generation: newGeneration() };
    const claimed = meta.etag ? await table.replaceIf(meta, claimProps) : await table.create(key, META, claimProps);
    if (!claimed) {
      // Another invocation won the claim and is listing: use what is stored.
      return { read: { ok: true, instances: stale }, meta: meta.props, listed: false, previous: stale };
    }

    const random = this.deps.random ?? mathRandomInt;
    const base = this.refreshMeta(claimProps);
    let next: MetaProps;
    let read: CacheRead;
    let listedWith: ScaleSetInfo | undefined;
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
      await table.writeChanged(key, built.instances.map((i) => ({ rowKey: i.id, props: instanceToProps(i) })), rows, { deleteMissing: true });
      const slowdown = slowdownFromRateLimit(rateLimit, clock.now());
      next = {
        ...base,
        ...this.initialMeta(),
        lastRefresh: lastRefreshAfterSuccess(base, clock.now(), random, slowdown),
        orchestrationMode: scaleSet.orchestrationMode,
        capacity: scaleSet.capacity,
        lastError: undefined,
        slowdown: slowdown.reason ?? undefined,
        refreshes: (meta.props.refreshes ?? 0) + 1,
        generation: newGeneration(),
        scaleSet: JSON.stringify(scaleSet),
        scaleSetReadAt: readAt,
        unparseable: unparseable.length || undefined,
      };
      read = { ok: true, instances: built.instances };
      listedWith = scaleSet;
      log.info(`instance cache ${key}: listed ${built.instances.length} VM(s)${slowdown.reason ? `; slowing down: ${slowdown.reason}` : ''}`);
    } catch (err) {
      if (err instanceof RateLimitedError) {
        const lastRefresh = lastRefreshAfterThrottle(base, clock.now(), err.retryAfterMs, random);
        next = { ...claimProps, lastRefresh, throttledUntil: clock.now() + err.retryAfterMs, lastError: capText(errorMessage(err)) };
        read = { ok: true, instances: stale };
        log.warn(`instance cache ${key}: ARM throttled the listing; serving ${stale.length} cached instance(s) until ${new Date(lastRefresh + base.periodMs).toISOString()}`);
      } else {
        next = { ...claimProps, lastError: capText(errorMessage(err)) };
        read = { ok: false, error: err instanceof Error ? err : new Error(String(err)), stale };
        log.error(`instance cache ${key}: refresh failed: ${errorMessage(err)}`);
      }
    }
    next = { ...next, claimedBy: undefined, claimUntil: undefined };
    if (!(await table.replaceIf(claimed, next))) {
      // Someone wrote the meta row while we listed (an invalidate): keep their refresh time,
      // which asks for a newer listing than ours, but give up the claim so they can list.
      await table.update<MetaProps>(key, META, (row) =>
        row?.props.claimedBy === token ? { ...next, lastRefresh: row.props.lastRefresh, claimedBy: undefined, claimUntil: undefined } : undefined,
      );
      log.info(`instance cache ${key}: invalidated while listing; the next call lists again`);
    }
    return { read, meta: next, listed: true, previous: stale, scaleSet: listedWith };
  }

  private throttled(meta: MetaProps, now: number): boolean {
    return (meta.throttledUntil ?? 0) > now;
  }

  private refreshMeta(props: MetaProps) {
    return { ...this.initialMeta(), lastRefresh: props.lastRefresh ?? null };
  }

  /** The period and jitter in force (stored on the meta row for `drover status`). */
  private initialMeta(): { periodMs: number; jitterSec: number } {
    return { periodMs: this.options.periodMs, jitterSec: Math.floor(this.options.jitterMs / 1000) };
  }

  private async load(): Promise<{ meta: Row<MetaProps>; rows: Row<InstanceProps>[] }> {
    const { meta, rows } = await loadPartition(this.deps.table, this.options.key);
    return { meta: meta ?? { partitionKey: this.options.key, rowKey: META, etag: '', props: this.initialMeta() }, rows };
  }
}

async function loadPartition(table: EntityTable, key: string): Promise<{ meta: Row<MetaProps> | undefined; rows: Row<InstanceProps>[] }> {
  const all = await table.list<MetaProps & InstanceProps>(key);
  return {
    meta: all.find((r) => r.rowKey === META) as Row<MetaProps> | undefined,
    rows: all.filter((r) => r.rowKey !== META) as Row<InstanceProps>[],
  };
}

/** The stored cache of a scale set, without refreshing it (for `drover status`). */
export async function peekCache(table: EntityTable, key: string): Promise<{ meta: MetaProps | undefined; instances: CachedInstance[] }> {
  const { meta, rows } = await loadPartition(table, key);
  return { meta: meta?.props, instances: rows.map(instanceFromRow) };
}

/** A scale set's partition in the `instances` table. */
export function cacheKey(scaleSet: { resourceGroup: string; name: string }): string {
  // Azure compares both case-insensitively: one partition per scale set, however it is spelled.
  return `${scaleSet.resourceGroup.toLowerCase()}/${scaleSet.name.toLowerCase()}`;
}
