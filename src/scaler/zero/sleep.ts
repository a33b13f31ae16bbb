/**
 * The scale-to-zero rules of a target that sleeps without an activator (every source `queue` or
 * `push`, no `activator`; KEDA's activation and cooldown): its work waits in the queue, so
 * nothing has to stand in front of it while it is at zero.
 *
 *   at zero     a source strictly above its activation threshold wakes it (to at least 1);
 *               while none is, it stays at zero whatever the load below the threshold asks
 *   above zero  an active source keeps it at 1 at least and restarts the cooldown; once none
 *               has been active for `cooldown` (default 5m), it may go to zero, one step at a
 *               time: the rate limits bring it down to 1, and the last write is 1 → 0 (never
 *               N → 0 in one write). Until then it keeps 1, and a reconcile is asked for when
 *               the cooldown ends.
 *
 * The cooldown counts from the last active observation, kept in the record (`lastActiveAt`);
 * before any, from when Drover adopted the target: a workload taken over is not put to sleep
 * sooner than a whole cooldown after Drover first saw it.
 *
 * A source whose read fails (with no fallback standing for it) stops the way down where it is:
 * an unreadable queue may hold work.
 *
 * Not this path: a target with an `http` source or an activator (Knative's rules, scale-to-zero.ts),
 * one with a lower bound above zero or scale to zero disabled, and one with no load sample (no
 * evidence: the pipeline's usual rule, which never lowers).
 */
import { applyCooldown } from './cooldown.js';
import { NO_POLICY } from '../read/policy-settings.js';
import { apply, report, type ScalePlan } from './scale-to-zero.js';
import type { TargetRecordPatch } from '../read/target-record.js';
import type { BoundRule } from '../read/bound-rules.js';
import { effectiveBounds } from '../limit/policy-stages.js';
import { sourcesView, type SourcesContext } from '../recommend/sources-view.js';

export interface SleepOutput {
  replicas: number;
  plan: ScalePlan;
  boundBy?: BoundRule;
  changes: TargetRecordPatch;
}

export function sleepPlan(replicas: number | undefined, ctx: SourcesContext): SleepOutput | undefined {
  const { settings, record, now } = ctx;
  if (!settings.sleepsWithoutActivator || replicas === undefined || effectiveBounds(ctx).minScale > 0) return undefined;
  const { active, failing } = sourcesView(ctx);
  const current = ctx.observation.scale;
  const quietSince = record?.lastActiveAt ?? record?.adoptedAt ?? now;
  const lastActiveAt = active ? now : quietSince;
  const changes: TargetRecordPatch = record?.lastActiveAt === lastActiveAt ? {} : { lastActiveAt };
  const out = (scale: number, plan: ScalePlan, boundBy?: BoundRule): SleepOutput => ({ replicas: scale, plan, changes, ...(boundBy && scale !== replicas ? { boundBy } : {}) });

  if (active) {
    const scale = Math.max(replicas, 1);
    return out(scale, planOf(apply(scale, 'desired-nonzero')), current === 0 ? 'ActivationScale' : 'CooldownPending');
  }
  if (current === 0) return out(0, planOf(report(0, 'idle-at-zero')), 'Inactive');
  // A source that cannot be read may hold work: no step towards zero while one fails (the
  // behavior stage has already kept the scale from falling).
  if (failing) return out(Math.max(replicas, 1), planOf(apply(Math.max(replicas, 1), 'desired-nonzero')), 'SourceFailing');
  const cooldownMs = (settings.policy ?? NO_POLICY).cooldownMs;
  const cooled = applyCooldown({ replicas, current, active, lastActiveAt: quietSince, since: quietSince, cooldownMs, now });
  if (cooled.boundBy === 'CooldownPending') {
    return out(1, planOf(apply(1, 'cooldown-pending', { requeueAfterMs: [quietSince + cooldownMs - now + 1] })), 'CooldownPending');
  }
  if (cooled.replicas === 0) return out(0, planOf(apply(0, 'cooldown-elapsed')));
  return out(cooled.replicas, planOf(apply(cooled.replicas, cooled.boundBy === 'StepToZero' ? 'step-to-zero' : 'desired-nonzero')), cooled.boundBy);
}

function planOf(step: ReturnType<typeof apply>): ScalePlan {
  if (step.kind !== 'plan') throw new Error('a scale step without a plan');
  return step.plan;
}
