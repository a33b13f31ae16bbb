/**
 * The target port of a sized pool (`scaleTargetRef: { kind: Pool, name }`): the target decides
 * how many, the pool which. Read: the pool's healthy running VMs, from the instance cache as
 * stored (no listing: the pool's own passes keep it fresh). Write: the wanted count as the
 * pool's `~wanted` row (ETag-guarded, the partition's generation bumped, src/pool/wanted.ts),
 * then a reconcile of the pool, which carries it out.
 */
import type { PoolConfig } from '../../config/schema.js';
import type { Clock } from '../../clock.js';
import type { QueueSender } from '../../queue/sender.js';
import type { EntityTable } from '../../state/entity-table.js';
import { cacheKey, peekCache } from '../../cache/scale-set-cache.js';
import { RAISE_PREFIX, WANTED_KEY, raises, wantedOf, writeWanted, type WantedProps } from '../../pool/wanted.js';
import { isBroken } from '../../pool/fast-delete.js';
import { isDeallocated } from '../../pool/warm-buffer.js';
import type { CachedInstance } from '../../cache/instance.js';
import { isKnownPowerState, isRunningPowerState } from '../../cache/power-state.js';

/** What a pool's port uses: the pool's rows, its cache, and the reconcile queue. */
export interface PoolPortDeps {
  readonly holder: string;
  readonly clock: Clock;
  readonly queues: Pick<QueueSender, 'reconcile'>;
  readonly stores: { readonly inventory: EntityTable; readonly instances: EntityTable };
}

/** Structurally a TargetPort (target-port.ts imports this module, so it is not named here). */
export function poolScale(deps: PoolPortDeps, pool: PoolConfig) {
  const description = `pool ${pool.name}`;
  const machines = deps.stores.inventory;
  return {
    kind: 'pool' as const,
    description,
    async read() {
      const [{ instances }, row] = await Promise.all([peekCache(deps.stores.instances, cacheKey(pool.scaleSet)), machines.get<WantedProps>(pool.name, WANTED_KEY)]);
      return { ...observePool(instances, wantedOf(row), pool.maxCount), ...(row ? { etag: row.etag } : {}) };
    },
    async write(replicas: number): Promise<string | undefined> {
      const wanted = cappedWanted(replicas, pool.maxCount);
      const { written, previous } = await writeWanted(machines, pool.name, wanted, deps.holder, deps.clock.now());
      if (!written) throw new Error(`${description}: the wanted count changed while it was written; read again on the next pass`);
      const reason = `the wanted count is now ${wanted}`;
      await deps.queues.reconcile({ kind: 'pool', name: pool.name, reason: raises(wanted, previous) ? `${RAISE_PREFIX}${reason}` : reason });
      return wanted < replicas ? `the pool's maxCount ${pool.maxCount} caps the wanted ${replicas}` : undefined;
    },
  };
}

/**
 * What a Pool target observes (pure; replay observes its modelled pool the same way): the
 * wanted count, the healthy running VMs among the cached instances, and the deallocated ones a
 * raise would start before it creates any (the warm buffer).
 */
export function observePool(instances: readonly CachedInstance[], wanted: number | undefined, maxCount: number): { specReplicas: number; ready: number; startable: number } {
  const live = instances.filter((i) => i.state !== 'Deleting' && i.provisioningState !== 'Deleting');
  const ready = live.filter((i) => isRunning(i) && !isBroken(i) && i.errorInfo === null).length;
  // A Spot pool's VM Azure evicted is deallocated too, and is deleted and replaced: counted here
  // all the same (the cache does not say which were parked), it only costs a raise unlearned.
  const startable = live.filter(isDeallocated).length;
  // Until a target wrote one, the pool holds what it has (capped by maxCount when it has one).
  return { specReplicas: wanted ?? (maxCount > 0 ? Math.min(maxCount, live.length) : live.length), ready, startable };
}

/** The wanted count a target's replicas become: the pool's maxCount is its ceiling (0: none). */
export function cappedWanted(replicas: number, maxCount: number): number {
  return maxCount > 0 ? Math.min(replicas, maxCount) : replicas;
}

/** A VM that serves: Running, with a known running power state. */
export function isRunning(instance: CachedInstance): boolean {
  return instance.state === 'Running' && isKnownPowerState(instance.powerState) && isRunningPowerState(instance.powerState);
}
