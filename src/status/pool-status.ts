import type { PoolConfig } from '../config/schema.js';
import type { Clock } from '../clock.js';
import type { HostConfiguration } from '../queue/newest-config.js';
import type { EntityTable } from '../state/entity-table.js';
import { cacheKey } from '../cache/scale-set-cache.js';
import { toInventoryRow } from '../pool/inventory.js';
import { countMachines, type MachineCounts } from '../pool/counts.js';
import { isProtected } from '../pool/scale-in.js';
import { nextRefreshAt } from '../cache/refresh-policy.js';
import type { CachedInstance, InstanceStatus } from '../cache/instance.js';
import { iso } from './time.js';
import { poolNotesStatus, type PoolNotesStatus } from './pool-notes.js';
import { leftAloneField } from './configuration.js';
import { readCacheView } from './cache-read.js';
import { readInventoryView } from './inventory-read.js';
import type { PagedListOptions } from './paged-list.js';

export interface InstanceStatusView extends Omit<InstanceStatus, 'state'> {
  id: string;
  /** The cache's state, except `Stopped` for a provisioned VM stopped or deallocated (parked or not): `powerState` says which. */
  state: InstanceStatus['state'] | 'Stopped';
  powerState: string | null;
  /** `protectFromScaleIn` or `protectFromScaleSetActions`: a scale-in never chooses it. */
  protected?: true;
}

export interface PoolStatus extends PoolNotesStatus {
  name: string;
  scaleSet: { resourceGroup: string; name: string; orchestrationMode: string | null; capacity: number | null };
  cache: { lastRefresh: string | null; nextRefresh: string | null; size: number; refreshes: number; lastError: string | null; slowdown: string | null; throttledUntil?: string } | null;
  instances: InstanceStatusView[];
  machines: { providerId: string; providerStatus: string | null; address: string | null; createdAt: string | null; updatedAt: string | null }[];
  safetySwitch: { providerOnly: string[]; inventoryOnly: string[]; since: string } | null;
  backoffUntil: string | null;
  /** The pool's VMs by health: broken ones (failed provisioning or extension) apart from healthy ones. */
  counts: MachineCounts;
  /** The count the target sizing this pool wants (its `~wanted` row); absent: the pool fills to maxCount. */
  wanted?: number;
  /** "left to a newer configuration (seq N)": the pool carries a newer stamp than this host's configuration; absent otherwise. */
  leftAlone?: string;
}

/** The cache in point reads, the inventory (a few rows, packed) in pages with a deadline each: no read per VM. */
/** What a pool's status reads: its instance cache and inventory rows, judged against this host's configuration. */
export interface PoolStatusDeps {
  readonly clock: Clock;
  readonly configuration: HostConfiguration;
  readonly stores: { readonly inventory: EntityTable; readonly instances: EntityTable };
}

export async function poolStatus(deps: PoolStatusDeps, pool: PoolConfig, options: PagedListOptions = {}): Promise<PoolStatus> {
  const [cache, { rows, safety, backoff, wanted, notesRow, generationRow }] = await Promise.all([readCacheView(deps.stores.instances, cacheKey(pool.scaleSet), options), readInventoryView(deps.stores.inventory, pool.name, options)]);
  const meta = cache.meta;
  return {
    name: pool.name,
    scaleSet: {
      resourceGroup: pool.scaleSet.resourceGroup,
      name: pool.scaleSet.name,
      orchestrationMode: meta?.orchestrationMode ?? null,
      capacity: meta?.capacity ?? null,
    },
    cache: meta
      ? {
          lastRefresh: iso(meta.lastRefresh),
          nextRefresh: iso(nextRefreshAt({ lastRefresh: meta.lastRefresh ?? null, periodMs: meta.periodMs, jitterSec: meta.jitterSec })),
          size: cache.instances.length,
          refreshes: meta.refreshes ?? 0,
          lastError: meta.lastError ?? null,
          slowdown: meta.slowdown ?? null,
          // At most 30 min ahead whatever ARM asked for; lastError then says what it asked.
          ...(meta.throttledUntil !== undefined && meta.throttledUntil > deps.clock.now() ? { throttledUntil: iso(meta.throttledUntil)! } : {}),
        }
      : null,
    instances: cache.instances.map((i) => ({ id: i.id, state: shownState(i), powerState: i.powerState || null, errorInfo: i.errorInfo, ...(isProtected(i) ? { protected: true as const } : {}) })),
    machines: rows.map(toInventoryRow).map((r) => ({ providerId: r.providerId, providerStatus: r.providerStatus, address: r.address, createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt) })),
    safetySwitch: safety ? { providerOnly: safety.providerOnly, inventoryOnly: safety.inventoryOnly, since: iso(safety.since)! } : null,
    backoffUntil: backoff && backoff.until > deps.clock.now() ? iso(backoff.until) : null,
    counts: countMachines(cache.instances, rows),
    ...(wanted === undefined ? {} : { wanted }),
    ...poolNotesStatus(notesRow, meta !== undefined),
    ...(await leftAloneField(deps, generationRow?.props)),
  };
}

/** The cache's state follows the provisioning state (`Running` once provisioned), which says nothing of a VM someone stopped. */
export function shownState(i: Pick<CachedInstance, 'state' | 'powerState'>): InstanceStatusView['state'] {
  return i.state === 'Running' && /stopp|deallocat/.test(i.powerState) ? 'Stopped' : i.state;
}
