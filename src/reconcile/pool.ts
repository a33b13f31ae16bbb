/**
 * One reconcile of a pool: the provisioner's pass over the scale set (through the instance
 * cache) and the inventory, then the slots' capacity write, fast delete of VMs that failed
 * provisioning, and the inventory's statuses brought up to date. Every write is preceded by a
 * lease check, so a holder whose lease was taken over writes nothing more.
 */
import type { PoolConfig } from '../config/schema.js';
import { ScaleSetCache, cacheKey } from '../cache/scale-set-cache.js';
import { instanceIdFromProviderId } from '../cache/ids.js';
import { RateLimitedError } from '../errors/rate-limited.js';
import { AzureProvider, type FlushResult } from '../provisioner/azure-provider.js';
import { providerStatusOf } from '../provisioner/azure-machines.js';
import { backoffAfterFailure, isBackingOff } from '../provisioner/backoff.js';
import { decideProvisioning, isRefusal, type ProvisioningDecision } from '../provisioner/decide.js';
import { instancesToFastDelete } from '../provisioner/fast-delete.js';
import { InventoryStore } from '../provisioner/inventory-store.js';
import { inventoryMachine } from '../provisioner/machine.js';
import { runPoolPass, type PoolPassResult } from '../provisioner/provisioner.js';
import type { BackoffState } from '../provisioner/backoff.js';
import type { CachedInstance } from '../cache/instance.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Decision, ReconcileContext } from './types.js';
import { poolFields } from '../state/history.js';

/** How long a pass may wait for a token of the pool's rate limits before leaving it to the next pass. */
const MAX_LIMITER_WAIT_MS = 20_000;
/** When VMs of a capacity raise are not listed yet, look again this soon. */
const ADOPTION_RECHECK_MS = 15_000;

export function poolCache(rt: Runtime, pool: PoolConfig, api: Awaited<ReturnType<Runtime['scaleSetApi']>>, log: ReconcileContext['log']): ScaleSetCache {
  return new ScaleSetCache(
    { table: rt.table('instances'), api, clock: rt.clock, log, holder: rt.holder },
    {
      key: cacheKey(pool.scaleSet),
      resourceGroup: pool.scaleSet.resourceGroup,
      name: pool.scaleSet.name,
      periodMs: pool.instanceCache.ttl,
      jitterMs: pool.instanceCache.jitter,
      flags: {
        enableFastDeleteOnFailedProvisioning: pool.enableFastDeleteOnFailedProvisioning,
        enableDetailedCSEMessage: pool.enableDetailedCSEMessage,
        enableVmssFlexNodes: pool.enableVmssFlexNodes,
      },
    },
  );
}

export async function reconcilePool(ctx: ReconcileContext, pool: PoolConfig): Promise<Decision> {
  const { rt, log, signal } = ctx;
  const api = await rt.scaleSetApi();
  const cache = poolCache(rt, pool, api, log);
  const inventory = new InventoryStore(rt.table('machines'), pool.name, rt.clock);
  const { backoff, safety } = await inventory.snapshot();
  const backingOff = isBackingOff(backoff, rt.clock.now());
  const provider = new AzureProvider(
    { api, cache, inventory, log },
    { resourceGroup: pool.scaleSet.resourceGroup, name: pool.scaleSet.name, instanceLimit: pool.instanceLimit, maxSlots: pool.chunkSize, noSlots: backingOff },
  );

  if (ctx.dryRun) return dryRun(provider, inventory, pool, signal);

  // Shared buckets; a pass waits a bounded time for a token and otherwise leaves the work to the next pass.
  const limiter = (kind: 'reconcile' | 'creation') => {
    const shared = rt.limiter(`${pool.name}/${kind}`, kind === 'reconcile' ? pool.reconcileRate : pool.creationRate);
    return { wait: (s: AbortSignal) => shared.wait(s, MAX_LIMITER_WAIT_MS) };
  };
  let pass: PoolPassResult | undefined;
  try {
    pass = await runPoolPass(
      { provider, inventory, session: { check: () => ctx.lease.check() }, logger: log },
      { name: pool.name, maxCount: pool.maxCount, chunkSize: pool.chunkSize, reconcileLimiter: limiter('reconcile'), creationLimiter: limiter('creation') },
      signal,
    );
  } catch (err) {
    if (!(err instanceof RateLimitedError)) throw err;
    // Before listing: the whole pass waits for the next one. Part-way through creating: what
    // was adopted or reserved so far is carried through below, the rest waits.
    if (provider.view.scaleSet === undefined) return { decision: 'rate limited', reason: `the pool's ${err.subject} rate allows no pass yet; the next pass goes on` };
    log.info(`pool ${pool.name}: ${err.message}; the rest of the chunk waits for the next pass`);
  }

  let flush: FlushResult = { kind: 'none' };
  if (provider.pendingSlots > 0) {
    await ctx.lease.check();
    flush = await provider.flush(signal);
    if (flush.kind === 'raised' && (flush.awaiting > 0 || !flush.done)) {
      await rt.queues.reconcile({ kind: 'pool', name: pool.name, reason: 'adopt the instances of a capacity raise' }, ADOPTION_RECHECK_MS);
    }
  }

  const deleted = await fastDelete(ctx, pool, provider, cache, inventory, backoff);
  const rows = await inventory.rows();
  const byId = new Map(provider.view.instances.map((i) => [i.id, i]));
  await ctx.lease.check();
  await inventory.syncStatuses(rows, (id) => {
    const i = byId.get(id);
    return i && providerStatusOf(i);
  });
  const decision = pass?.decision;
  if (decision) {
    await inventory.setSafetySwitch(decision.kind === 'safetySwitch' ? { providerOnly: decision.providerOnly, inventoryOnly: decision.inventoryOnly } : undefined, safety);
  }
  const observed = { kind: 'pool' as const, fields: poolFields(provider.view.instances, rows.length, flush.kind === 'raised' ? flush.to : provider.view.scaleSet?.capacity) };
  return { observed, ...describeDecision(decision, {
    created: pass ? pass.created.length : provider.broughtUp,
    failedCreations: pass?.failed.map((f) => `${f.id}: ${f.error}`) ?? [],
    flush,
    deleted,
    backingOff,
    backoffUntil: backoff?.until,
  }) };
}

async function fastDelete(
  ctx: ReconcileContext,
  pool: PoolConfig,
  provider: AzureProvider,
  cache: ScaleSetCache,
  inventory: InventoryStore,
  backoff: BackoffState | undefined,
): Promise<string[]> {
  if (!pool.enableFastDeleteOnFailedProvisioning) return [];
  const doomed = instancesToFastDelete(provider.view.instances);
  if (doomed.length === 0) return [];
  const { rt, log } = ctx;
  const api = await rt.scaleSetApi();
  await ctx.lease.check();
  // Rows first: a crash after the delete must not leave rows that trip the safety switch once
  // the VMs are gone (and the delete is not repeated, as the VMs then read as Deleting).
  await inventory.markFailed(doomed.map((i) => i.id), new Map(doomed.map((i) => [i.id, i.name])));
  const next = backoffAfterFailure(backoff, rt.clock.now());
  await inventory.setBackoff(next);
  // Flexible scale sets take VM names, Uniform ones instance ids.
  const ids = doomed.map((i) => (provider.view.scaleSet?.orchestrationMode === 'Flexible' ? i.name : instanceIdFromProviderId(i.id)));
  const lro = await api.deleteInstances(pool.scaleSet.resourceGroup, pool.scaleSet.name, ids, { abortSignal: ctx.signal });
  if (!lro.done) {
    await rt.queues.reconcile({ kind: 'pool', name: pool.name, reason: 'check on a delete ARM is still working on' }, ADOPTION_RECHECK_MS);
  }
  for (const group of groupByError(doomed)) await cache.setInstancesStatus(group.ids, { state: 'Deleting', errorInfo: group.errorInfo });
  log.warn(`pool ${pool.name}: deleted ${doomed.length} VM(s) that failed provisioning; no new capacity until ${new Date(next.until).toISOString()}`);
  return doomed.map((i) => i.id);
}

/** Instances grouped by identical error info, so each group is one batched cache write. */
function groupByError(instances: readonly CachedInstance[]): { ids: string[]; errorInfo: CachedInstance['errorInfo'] }[] {
  const groups = new Map<string, { ids: string[]; errorInfo: CachedInstance['errorInfo'] }>();
  for (const i of instances) {
    const key = JSON.stringify(i.errorInfo);
    const group = groups.get(key) ?? { ids: [], errorInfo: i.errorInfo };
    group.ids.push(i.id);
    groups.set(key, group);
  }
  return [...groups.values()];
}

async function dryRun(provider: AzureProvider, inventory: InventoryStore, pool: PoolConfig, signal: AbortSignal): Promise<Decision> {
  const [machines, rows] = await Promise.all([provider.listMachines(signal), inventory.list()]);
  const usable = rows.filter((r) => provider.parseProviderId(r.providerId));
  const decision = decideProvisioning(machines, usable.map(inventoryMachine), { maxCount: pool.maxCount, chunkSize: pool.chunkSize });
  const doomed = pool.enableFastDeleteOnFailedProvisioning ? instancesToFastDelete(provider.view.instances) : [];
  return describeDecision(decision, { created: 0, failedCreations: [], flush: { kind: 'none' }, deleted: [], backingOff: false, wouldDelete: doomed.map((i) => i.id), dryRun: true });
}

function describeDecision(
  d: ProvisioningDecision | undefined,
  r: { created: number; failedCreations: string[]; flush: FlushResult; deleted: string[]; backingOff: boolean; backoffUntil?: number; wouldDelete?: string[]; dryRun?: boolean },
): Decision {
  // No decision: the creation rate limit stopped the chunk part-way.
  const parts: string[] = [d?.reason ?? `brought up ${r.created} before the creation rate limit ran dry; the rest waits for the next pass`];
  if (r.backingOff) parts.push(`creations backed off until ${new Date(r.backoffUntil ?? 0).toISOString()} after failed provisioning`);
  if (r.flush.kind === 'raised') parts.push(`capacity ${r.flush.from} → ${r.flush.to}, adopted ${r.flush.adopted.length}${r.flush.awaiting ? `, ${r.flush.awaiting} awaited` : ''}`);
  if (r.flush.kind === 'conflict') parts.push(r.flush.reason);
  if (r.deleted.length) parts.push(`fast-deleted ${r.deleted.length}: ${r.deleted.join(', ')}`);
  if (r.wouldDelete?.length) parts.push(`would fast-delete ${r.wouldDelete.join(', ')}`);
  if (r.failedCreations.length) parts.push(`failed: ${r.failedCreations.join('; ')}`);
  const verb =
    d === undefined || d.kind === 'bringUp' ? (r.dryRun && d ? `would bring up ${d.machines.length}` : `brought up ${r.created}`)
    : d.kind === 'safetySwitch' ? 'safety switch'
    : d.kind === 'invalidAvailability' ? 'refused'
    : d.kind === 'atLimit' ? 'at limit'
    : 'no capacity';
  const reason = parts.join('; ');
  return d && isRefusal(d) ? { decision: verb, reason, error: d.reason } : { decision: verb, reason };
}
