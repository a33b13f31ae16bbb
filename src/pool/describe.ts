/** The decision log's words for a pool pass: what the plan said, and what the executor did. */
import type { Decision } from '../job/context.js';
import type { PoolOutcome } from './execute.js';
import type { PoolPlan } from './plan.js';
import { vmName, vmNames } from './vm-names.js';

export const LOST_RACE = 'capacity write lost a race with another writer (412): retried next pass';

export function describeOutcome(plan: PoolPlan, outcome: PoolOutcome): Decision {
  if (plan.switchHolds) {
    return { decision: 'safety switch', reason: plan.lines.join('; '), error: plan.decision.reason };
  }
  const parts: string[] = [];
  const retiredNow = new Set(outcome.retired);
  for (const r of plan.retire) if (retiredNow.has(r.id)) parts.push(r.why);
  if (plan.safety.kind === 'clear') parts.push('the views agree again: safety switch cleared');
  // While backing off no slot is offered: "no more capacity" would blame the scale set, and the backoff line says why.
  if (!backedOff(plan)) parts.push(plan.decision.reason);
  if (outcome.adopted.length) parts.push(`adopted ${outcome.adopted.length} running VM(s)`);
  if (outcome.recovered.length) parts.push(`${outcome.recovered.length} VM(s) marked failed are running and healthy again: marked Running`);
  for (const line of plan.lines) if (/on their way out|parked VM\(s\) before creating|marked Waking/.test(line)) parts.push(line);
  if (outcome.woken.length) parts.push(`started ${outcome.woken.length} parked VM(s): ${outcome.woken.join(', ')}`);
  if (outcome.wakeWaiting) parts.push(`the creation rate allows ${outcome.woken.length} of ${outcome.woken.length + outcome.wakeWaiting} starts now; the rest, and any new VM, wait for a later pass`);
  const raise = outcome.raise;
  if (raise.kind === 'raised') {
    parts.push(`raised capacity ${raise.from} → ${raise.to}${raise.done ? '' : ' (ARM still working)'}, adopted ${raise.adopted.length} new VM(s)${raise.awaiting ? `, ${raise.awaiting} not listed yet` : ''}`);
    if (raise.to - raise.from < raise.wanted) parts.push(`the creation rate allowed ${raise.to - raise.from} of ${raise.wanted} now; the rest waits for a later pass`);
  } else if (raise.kind === 'lostRace') {
    parts.push(LOST_RACE);
  } else if (raise.kind === 'rateLimited') {
    parts.push(`the creation rate allows none of ${raise.wanted} new VM(s) yet; a later pass goes on`);
  }
  for (const line of plan.lines) if (line.startsWith('creations backed off')) parts.push(line);
  if (outcome.deleted.length) {
    const until = plan.backoff?.until ?? plan.backoffUntil;
    parts.push(`fast-deleted ${outcome.deleted.length} broken VM(s): ${vmNames(outcome.deleted, plan.delete)}${until === undefined ? '' : `; creations backed off until ${new Date(until).toISOString()}`}`);
  }
  for (const line of plan.lines) if (/protected VMs kept above|above the wanted|marked for scale-in|evicted by Azure|beyond the warm buffer|marked Parked/.test(line)) parts.push(line);
  if (outcome.scaledIn.length) parts.push(`scaled in: deleted ${outcome.scaledIn.length} VM(s) by instance id in ${outcome.scaleInCalls} call(s): ${vmNames(outcome.scaledIn, plan.scaleIn)}`);
  if (outcome.scaleInWaiting) parts.push(`the deletion rate allows ${outcome.scaledIn.length} of ${outcome.scaledIn.length + outcome.scaleInWaiting} now; the rest waits for a later pass`);
  if (outcome.parked.length) parts.push(`parked ${outcome.parked.length} VM(s) in the warm buffer (deallocated): ${vmNames(outcome.parked, plan.park)}`);
  if (outcome.parkWaiting) parts.push(`the deletion rate allows ${outcome.parked.length} of ${outcome.parked.length + outcome.parkWaiting} parks now; the rest waits for a later pass`);
  if (outcome.rowFailures.length) parts.push(`not written: ${outcome.rowFailures.join('; ')}`);
  for (const id of plan.skipped) parts.push(`inventory row has unparseable provider ID ${JSON.stringify(id)}, skipped`);
  const reason = parts.join('; ');
  if (outcome.storeFailed) return { decision: verbOf(plan, outcome), reason, error: `inventory writes failed: ${outcome.rowFailures.join('; ')}`, transient: true };
  return { decision: verbOf(plan, outcome), reason };
}

function verbOf(plan: PoolPlan, outcome: PoolOutcome): string {
  const raise = outcome.raise;
  if (raise.kind === 'raised') return `${outcome.woken.length ? `started ${outcome.woken.length} parked, ` : ''}raised capacity ${raise.from} → ${raise.to}`;
  if (raise.kind === 'lostRace') return 'capacity write lost a race';
  if (outcome.adopted.length) return `adopted ${outcome.adopted.length}`;
  if (outcome.deleted.length) return `fast-deleted ${outcome.deleted.length}`;
  if (outcome.scaledIn.length || outcome.parked.length) return [outcome.scaledIn.length ? `scaled in ${outcome.scaledIn.length}` : '', outcome.parked.length ? `parked ${outcome.parked.length}` : ''].filter(Boolean).join(', ');
  if (outcome.woken.length) return `started ${outcome.woken.length} parked`;
  if (outcome.retired.length) return `retired ${outcome.retired.length}`;
  if (raise.kind === 'rateLimited') return 'rate limited';
  switch (plan.decision.kind) {
    case 'atLimit':
      return 'at limit';
    case 'noCapacity':
      return backedOff(plan) ? 'backed off' : 'no capacity';
    default:
      return 'nothing to do';
  }
}

/** Nothing to bring up because creations back off after failed VMs (not because the scale set is full). */
function backedOff(plan: PoolPlan): boolean {
  return plan.decision.kind === 'noCapacity' && plan.lines.some((line) => line.startsWith('creations backed off'));
}

/** A dry run: the plan, printed. */
export function describePlan(plan: PoolPlan): Decision {
  if (plan.switchHolds) return { decision: 'would hold the safety switch', reason: plan.lines.join('; '), error: plan.decision.reason };
  const parts = [...plan.lines];
  if (plan.adopt.length) parts.push(`would adopt ${plan.adopt.length} running VM(s)`);
  if (plan.raise) parts.push(`would raise capacity ${plan.raise.from} → ${plan.raise.to} (If-Match ${plan.raise.etag}), as far as the creation rate allows`);
  if (plan.delete.length) parts.push(`would fast-delete ${plan.delete.map(vmName).join(', ')}`);
  if (plan.statusUpdates.length) parts.push(`would update the status of ${plan.statusUpdates.length} row(s)`);
  if (plan.scaleIn.length) parts.push(`would scale in: delete ${plan.scaleIn.map(vmName).join(', ')}`);
  if (plan.park.length) parts.push(`would park (deallocate) ${plan.park.map(vmName).join(', ')}`);
  if (plan.wake.length) parts.push(`would start ${plan.wake.map(vmName).join(', ')} before any new VM`);
  const verb = plan.wake.length ? `would start ${plan.wake.length} parked` : plan.raise ? `would raise capacity ${plan.raise.from} → ${plan.raise.to}` : plan.park.length ? `would park ${plan.park.length}` : plan.adopt.length ? `would adopt ${plan.adopt.length}` : plan.delete.length ? `would fast-delete ${plan.delete.length}` : plan.retire.length ? `would retire ${plan.retire.length}` : 'would do nothing';
  return { decision: verb, reason: parts.join('; ') };
}
