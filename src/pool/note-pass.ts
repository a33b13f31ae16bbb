/**
 * Between a pool's plan and its execution (pool/reconcile-pool.ts): a plan that would write anything
 * asks the autoscale watch first and, while an enabled autoscale setting sizes the scale set (or
 * its settings cannot be read), nothing at all is carried out: no capacity write, delete or
 * start, no inventory write. Then the pool's notes (notes.ts) are written when they changed, and
 * a warning noted for the first time goes to the log. A dry run writes and logs nothing.
 *
 * A plan that changes nothing is not checked: it writes nothing to fight over, and a steady pool
 * costs the autoscale settings no read.
 */
import type { PoolConfig } from '../config/schema.js';
import type { Decision } from '../job/decision.js';
import { autoscaleHoldOf } from './autoscale-hold.js';
import { newWarnings, notesOf, planNotes, sameNotes, withWarnings, writeNotes } from './notes.js';
import { changesNothing, type PoolPlan } from './plan.js';
import type { PoolSnapshot } from './snapshot.js';
import type { DroverConfig } from '../config/schema.js';
import type { Clock } from '../clock.js';
import type { AutoscaleWatch } from './autoscale-watch.js';
import type { EntityTable } from '../state/entity-table.js';
import type { ReconcileContext } from '../job/context.js';

export interface NotedPass {
  /** Set when the pass must write nothing: its decision. */
  held?: Decision;
  /** Warnings noted for the first time in this pass (the decision log gets them once). */
  warnings: string[];
}

/** What noting a pass uses: the autoscale watch, and the pool's inventory for its notes row. */
export interface NotePassDeps {
  readonly config: Pick<DroverConfig, 'azure'>;
  readonly clock: Clock;
  readonly autoscale: Pick<AutoscaleWatch, 'settings'>;
  readonly stores: { readonly inventory: EntityTable };
}

export async function notePass(ctx: ReconcileContext<NotePassDeps>, pool: PoolConfig, snapshot: PoolSnapshot, plan: PoolPlan): Promise<NotedPass> {
  const { deps, log, signal } = ctx;
  const { resourceGroup, name } = pool.scaleSet;
  const scaleSetId = snapshot.scaleSet.id || `/subscriptions/${deps.config.azure?.subscriptionId ?? ''}/resourceGroups/${resourceGroup}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`;
  const hold = changesNothing(plan) ? undefined : autoscaleHoldOf(await deps.autoscale.settings(resourceGroup, pool.instanceCache.ttl, signal), scaleSetId, resourceGroup);
  const held: Decision | undefined = hold && { decision: ctx.dryRun ? 'would hold' : 'held', reason: hold.reason, error: hold.reason };
  if (ctx.dryRun) return { held, warnings: [] };

  const previous = notesOf(snapshot.inventory.notesRow);
  const notes = planNotes({ scaleSet: snapshot.scaleSet, lines: plan.lines, heldByMinAge: plan.heldByMinAge, hold, previous, now: deps.clock.now() });
  if (!sameNotes(previous, notes)) {
    await ctx.lease.check();
    await writeNotes(deps.stores.inventory, pool.name, notes);
  }
  const warnings = newWarnings(previous, notes);
  for (const warning of warnings) log.warn(`pool ${pool.name}: ${warning}`);
  return { held: held && withWarnings(held, warnings), warnings };
}
