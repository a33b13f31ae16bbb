/**
 * One reconcile of a pool: the snapshot read once, the plan (src/pool/plan.ts), the executor
 * carrying it out, and the decision log told what happened. A dry run prints the plan and
 * writes nothing at all: no limiter token, no cache row, no inventory row, no ARM call but reads.
 */
import type { DroverConfig, PoolConfig, TargetConfig } from '../config/schema.js';
import type { ScaleSetApi } from '../azure/scale-set-api.js';
import { ScaleSetCache, cacheKey } from '../cache/scale-set-cache.js';
import type { CachedInstance } from '../cache/instance.js';
import { instanceIdFromProviderId } from '../cache/ids.js';
import { RateLimitedError } from '../errors/rate-limited.js';
import { readPass, readSnapshot, type PoolSnapshot } from './snapshot.js';
import { recordWarm, stampGeneration } from './generation.js';
import { leftAlone, leftToNewer } from '../job/config-stamp.js';
import type { ConfigId } from '../config/sequence.js';
import type { EntityTable } from '../state/entity-table.js';
import { changesNothing, planPool, type Deletion, type PoolSettings } from './plan.js';
import { executePlan, type PoolPassDeps } from './execute.js';
import { describeOutcome, describePlan } from './describe.js';
import { tableRowWriter } from './row-writer.js';
import type { Clock } from '../clock.js';
import type { HostConfiguration } from '../queue/newest-config.js';
import type { QueueSender } from '../queue/sender.js';
import type { Rate } from '../config/rate.js';
import type { SharedLimiter } from '../state/limiter.js';
import type { ScaleSetReads } from './scale-set-reads.js';
import type { Decision, ReconcileContext } from '../job/context.js';
import { poolObservation } from './history-observation.js';
import { notePass, type NotePassDeps } from './note-pass.js';
import { withWarnings } from './notes.js';
import { isRaise } from './wanted.js';

/** How long a pass may wait for tokens of the pool's rate limits before leaving the rest to a later pass. */
export const MAX_LIMITER_WAIT_MS = 20_000;
/** When VMs of a capacity raise are not listed yet, or ARM still works on a delete, look again this soon. */
export const RECHECK_MS = 15_000;
/**
 * A pool's own recheck of unfinished work (new VMs not listed yet, an operation ARM still runs)
 * carries this reason and takes no reconcile-rate token: the pass that started the work took
 * one, and with the default `1m,1` a recheck 15 s later would always be refused. It is bounded
 * by the work it checks on: only a pass that left work unfinished sends one.
 */
export const RECHECK_PREFIX = 'recheck: ';
export const isRecheck = (reason: string) => reason.startsWith(RECHECK_PREFIX);
/**
 * How long a scale set read from ARM serves every pass (at most the cache's period): with a
 * pass a minute, one GET every other pass per scale set, against Compute's read budgets.
 */
export const SCALE_SET_PERIOD_MS = 120_000;

/** What a pool's pass uses, built once by the composition root and scoped to the pool (scope.ts). */
export type PoolJobDeps = NotePassDeps & {
  readonly config: Pick<DroverConfig, 'targets'>;
  readonly configuration: HostConfiguration;
  readonly clock: Clock;
  readonly holder: string;
  readonly queues: Pick<QueueSender, 'reconcile'>;
  readonly scaleSetReads: ScaleSetReads;
  readonly stores: { readonly inventory: EntityTable; readonly instances: EntityTable };
  limiter(name: string, rate: Rate): SharedLimiter;
  scaleSetApi(): Promise<ScaleSetApi>;
};

export function poolCache(deps: Pick<PoolJobDeps, 'stores' | 'clock' | 'holder'>, pool: PoolConfig, api: ScaleSetApi, log: ReconcileContext<unknown>['log']): ScaleSetCache {
  return new ScaleSetCache(
    { table: deps.stores.instances, api, clock: deps.clock, log, holder: deps.holder },
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

/** What the plan is told of the pool's configuration (replay plans with the very same). */
export function poolSettings(pool: PoolConfig, sizedBy?: string): PoolSettings {
  const settings: PoolSettings = { name: pool.name, maxCount: pool.maxCount, chunkSize: pool.chunkSize, instanceLimit: pool.instanceLimit, fastDelete: pool.enableFastDeleteOnFailedProvisioning, scaleInPolicy: pool.scaleIn.policy, scaleInMinAgeMs: pool.scaleIn.minAge, warmMax: pool.warm.max };
  return sizedBy === undefined ? settings : { ...settings, sizedBy };
}

/** The Pool target that sizes `pool`, if one does (config load allows at most one). */
export function sizingTarget(targets: readonly TargetConfig[], pool: PoolConfig): string | undefined {
  return targets.find((t) => 'kind' in t.scaleTargetRef && t.scaleTargetRef.kind === 'Pool' && t.scaleTargetRef.name === pool.name)?.name;
}

export async function reconcilePool(ctx: ReconcileContext<PoolJobDeps>, pool: PoolConfig): Promise<Decision> {
  const { deps, log, signal } = ctx;
  const gate = reconcileGate(ctx, pool);
  const api = await deps.scaleSetApi();
  const cache = poolCache(deps, pool, api, log);
  const machines = deps.stores.inventory;
  const settings = poolSettings(pool, sizingTarget(deps.config.targets, pool));
  if (ctx.dryRun) {
    const snapshot = await readSnapshot({ api, cache, machines }, pool, { dryRun: true, signal });
    const plan = planPool(snapshot, settings, deps.clock.now());
    return (await notePass(ctx, pool, snapshot, plan)).held ?? describePlan(plan);
  }

  const mine = { seq: deps.configuration.seq, hash: deps.configuration.hash };
  const read = async (freshScaleSet: boolean, gated: boolean) =>
    readPass({ api, cache, machines, reads: deps.scaleSetReads }, pool, {
      now: deps.clock.now(),
      scaleSetPeriodMs: Math.min(SCALE_SET_PERIOD_MS, pool.instanceCache.ttl),
      slowedPeriodMs: pool.instanceCache.ttl,
      freshScaleSet,
      gate: gated ? gate.open : undefined,
      stamp: { mine, newer: (stored) => leftToNewer(stored, mine, () => deps.configuration.newest.newerLive()), write: () => stampGeneration(machines, pool.name, mine) },
      beforeWrite: () => ctx.lease.check(),
      signal,
    });
  let passRead = await read(false, true);
  if (passRead.kind === 'snapshot' && passRead.stored && planPool(passRead.snapshot, settings, deps.clock.now()).raise) {
    // Raising capacity is a write under the scale set's ETag: read it from ARM, then plan again.
    passRead = await read(true, false);
  }
  if (passRead.kind === 'newer') return leftAlone(passRead.stamp, mine);
  if (passRead.kind === 'gated') return gate.limited!;
  if (passRead.kind === 'unchanged') {
    // The same decision as the plan that was recorded: the decision log keeps one line for it.
    log.debug?.(`pool ${pool.name}: nothing written since the last plan, the scale set unchanged: not read again`);
    // What it observed, the pass that recorded it gave the history already: nothing to write.
    const { observed: _seen, ...repeated } = passRead.record.decision;
    return repeated;
  }
  const { snapshot, cacheGeneration } = passRead;
  const plan = planPool(snapshot, settings, deps.clock.now());
  // One controller per scale set: held by an autoscale setting, the pass carries nothing out.
  const noted = await notePass(ctx, pool, snapshot, plan);
  if (noted.held) return noted.held;

  const outcome = await executePlan(plan, poolPassDeps(ctx, pool, { api, cache, machines }, snapshot, mine));
  // Our own capacity write or delete moved the scale set on: the next pass reads it from ARM.
  if (outcome.raise.kind === 'raised' || outcome.deleted.length > 0 || outcome.scaledIn.length > 0) {
    deps.scaleSetReads.forget(cacheKey(pool.scaleSet));
    await cache.forgetScaleSet();
  }
  const decision = withWarnings(describeOutcome(plan, outcome), noted.warnings);
  log.debug?.(`pool ${pool.name}: ${decision.decision}`);
  // For the history table, from what the pass read and did: no further read.
  const observed: Decision = { ...decision, observed: poolObservation(snapshot, plan, outcome) };
  // A warm pass repeats it whole: what it observed is what this pass did, as nothing changed since.
  if (changesNothing(plan) && cacheGeneration !== undefined && !decision.error) await rememberWarm(machines, pool.name, snapshot, plan.heldUntil, cacheGeneration, observed, deps.clock.now(), mine);
  return observed;
}

/**
 * The pool's reconcile rate bounds the passes that read and plan: a warm pass, which finds
 * nothing changed in two point reads, takes no token; a pass its target's raise enqueued takes
 * its token from the pool's `<pool>/raise` bucket, at the same rate (wanted.ts says why), any
 * other from `<pool>/reconcile`. `limited` says why `open` refused, once it did.
 */
function reconcileGate(ctx: ReconcileContext<PoolJobDeps>, pool: PoolConfig): { open: () => Promise<boolean>; limited: Decision | undefined } {
  const raise = isRaise(ctx.reason);
  const gate: { open: () => Promise<boolean>; limited: Decision | undefined } = {
    limited: undefined,
    open: async () => {
      if (isRecheck(ctx.reason)) return true;
      try {
        await ctx.deps.limiter(`${pool.name}/${raise ? 'raise' : 'reconcile'}`, pool.reconcileRate).wait(ctx.signal, MAX_LIMITER_WAIT_MS);
        return true;
      } catch (err) {
        if (!(err instanceof RateLimitedError)) throw err;
        gate.limited = { decision: 'rate limited', reason: `the pool's reconcile rate allows no ${raise ? 'raise ' : ''}pass yet (next token in ${err.retryAfterMs} ms); a later pass goes on` };
        return false;
      }
    },
  };
  return gate;
}

/** What the executor may touch in this pass: the pool's rows, its scale set, cache, lease, rate limits and queue. */
function poolPassDeps(
  ctx: ReconcileContext<PoolJobDeps>,
  pool: PoolConfig,
  sources: { api: ScaleSetApi; cache: ScaleSetCache; machines: EntityTable },
  snapshot: PoolSnapshot,
  configuration: ConfigId,
): PoolPassDeps {
  const { deps, signal } = ctx;
  const { api, cache, machines } = sources;
  const { resourceGroup, name } = pool.scaleSet;
  const flexible = snapshot.scaleSet.orchestrationMode === 'Flexible';
  // Flexible scale sets take VM names, Uniform ones instance ids.
  const instanceRef = (d: Deletion) => (flexible ? d.name : instanceIdFromProviderId(d.id));
  const creations = deps.limiter(`${pool.name}/creation`, pool.creationRate);
  const deletions = deps.limiter(`${pool.name}/deletion`, pool.deletionRate);
  return {
    rows: tableRowWriter(machines, pool.name, snapshot.inventory, configuration),
    arm: {
      // `api` is the object's scoped one (job/scope.ts): its calls already carry the object's signal.
      setCapacity: (capacity, etag) => api.setCapacity(resourceGroup, name, capacity, etag),
      deleteInstances: (doomed) =>
        api.deleteInstances(resourceGroup, name, doomed.map(instanceRef)),
      setPower: (power, vms) => api.setPower(resourceGroup, name, flexible ? 'Flexible' : 'Uniform', power, vms.map(instanceRef)),
    },
    cache: {
      relist: async (capacity) => {
        const view = await cache.forceUpdate({ ...snapshot.scaleSet, capacity });
        return view.read.ok ? view.read.instances : [];
      },
      relistAfterPower: async () => {
        await cache.forceUpdate(snapshot.scaleSet);
      },
      markDeleting: async (doomed) => {
        for (const group of groupByError(doomed)) await cache.setInstancesStatus(group.ids, { state: 'Deleting', errorInfo: group.errorInfo });
      },
    },
    lease: ctx.lease,
    creations: { draw: (wanted) => creations.draw(wanted, signal, MAX_LIMITER_WAIT_MS) },
    deletions: { draw: (wanted) => deletions.draw(wanted, signal, MAX_LIMITER_WAIT_MS) },
    chunkSize: pool.chunkSize,
    requeue: async (reason) => {
      await deps.queues.reconcile({ kind: 'pool', name: pool.name, reason: `${RECHECK_PREFIX}${reason}` }, RECHECK_MS);
    },
    now: () => deps.clock.now(),
  };
}

/** Records what a plan that changed nothing saw, so the next pass can skip reading it again. */
async function rememberWarm(machines: EntityTable, pool: string, snapshot: PoolSnapshot, heldUntil: number | undefined, cacheGeneration: number, decision: Decision, now: number, configuration: ConfigId) {
  const { backoff, generationRow } = snapshot.inventory;
  // A backoff that ends, or a VM held by scaleIn.minAge that comes of age, lets the same views
  // plan differently: the record stands until the first of them.
  const ends = [backoff !== undefined && backoff.until > now ? backoff.until : undefined, heldUntil].filter((t): t is number => t !== undefined);
  const validUntil = ends.length > 0 ? Math.min(...ends) : undefined;
  await recordWarm(machines, pool, generationRow, { cache: cacheGeneration, capacity: snapshot.scaleSet.capacity, etag: snapshot.scaleSet.etag, validUntil, decision }, configuration);
}

/** Deletions grouped by identical error info, so each group is one batched cache write. */
function groupByError(doomed: readonly Deletion[]): { ids: string[]; errorInfo: CachedInstance['errorInfo'] }[] {
  const groups = new Map<string, { ids: string[]; errorInfo: CachedInstance['errorInfo'] }>();
  for (const d of doomed) {
    const key = JSON.stringify(d.errorInfo);
    const group = groups.get(key) ?? { ids: [], errorInfo: d.errorInfo };
    group.ids.push(d.id);
    groups.set(key, group);
  }
  return [...groups.values()];
}
