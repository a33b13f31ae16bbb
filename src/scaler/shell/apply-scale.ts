/**
 * Carrying out a plan's scale on the target: only when the plan applies one and it differs
 * from the target's own (a missing replica count reads as 1); never in a dry run; for a scale
 * set only within its capacity write budget, else deferred to when the budget allows.
 */
import { errorMessage } from '../../log.js';
import { checkWriteBudget, decodeWrites, encodeWrites, recordWrite } from '../decide/capacity-budget.js';
import { decidePatch } from '../decide/plan-scale.js';
import type { WriteResult } from '../decide/follow-ups.js';
import type { ScalePlan } from '../decide/scale-to-zero.js';
import type { TargetRecord } from '../decide/target-record.js';
import { isTransient } from '../../errors/transient.js';
import { isTargetMissing, type ObservedTarget, type TargetPort } from './target-port.js';

export type { WriteResult } from '../decide/follow-ups.js';

export interface WriteContext {
  dryRun?: boolean;
  signal?: AbortSignal;
  now: number;
  /** The lease check that must precede every write. */
  checkLease(): Promise<void>;
  /**
   * Saves what must survive the write even if the reconcile dies right after it (the write
   * budget, the start of a wake); called after the lease check, before the write.
   */
  beforeWrite?(write: { from: number; to: number; capacityWrites?: string }): Promise<void>;
}

export async function applyScale(
  ctx: WriteContext,
  scale: Pick<TargetPort, 'kind' | 'write'>,
  plan: ScalePlan,
  observed: ObservedTarget,
  record: TargetRecord | undefined,
): Promise<WriteResult> {
  if (plan.kind !== 'apply') return { kind: 'none' };
  const patch = decidePatch(plan.scale, observed.specReplicas);
  if (!patch.patch) return { kind: 'unchanged', current: patch.current };
  const { from, to } = patch;
  if (ctx.dryRun) return { kind: 'would', from, to };

  let capacityWrites: string | undefined;
  if (scale.kind === 'scaleSet') {
    const writes = decodeWrites(record?.capacityWrites);
    const budget = checkWriteBudget(writes, ctx.now);
    if (!budget.ok) return { kind: 'deferred', from, to, retryAt: budget.retryAt };
    // Every attempt counts: ARM counts a refused update against the scale set too.
    capacityWrites = encodeWrites(recordWrite(writes, ctx.now));
  }
  await ctx.checkLease();
  await ctx.beforeWrite?.({ from, to, ...(capacityWrites ? { capacityWrites } : {}) });
  try {
    const note = await scale.write(to, observed, ctx.signal);
    return { kind: 'written', from, to, ...(note ? { note } : {}), ...(capacityWrites ? { capacityWrites } : {}) };
  } catch (error) {
    if (isTargetMissing(error)) return { kind: 'missing', error };
    return { kind: 'failed', from, to, error: errorMessage(error), transient: isTransient(error), ...(capacityWrites ? { capacityWrites } : {}) };
  }
}
