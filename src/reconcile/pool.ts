/** One reconcile of a pool: the instance cache, then the provisioner. */
import type { PoolConfig } from '../config/schema.js';
import type { Decision, ReconcileContext } from './types.js';

export async function reconcilePool(ctx: ReconcileContext, pool: PoolConfig): Promise<Decision> {
  await ctx.lease.check();
  return {
    decision: 'visited',
    reason: `pool ${pool.name} (scale set ${pool.scaleSet.resourceGroup}/${pool.scaleSet.name}) visited under its lease (${ctx.reason})`,
  };
}
