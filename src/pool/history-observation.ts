/**
 * What a pool pass tells the `history` table, from what it read and did (no further read): the
 * capacity, the inventory and the VMs counted as `drover status` counts them, as the pass leaves
 * them, and the events worth a mark on the timeline (a VM failed, deleted or adopted, the safety
 * switch tripped or cleared). Pure.
 */
import { shortId } from '../cache/ids.js';
import { countMachines } from './counts.js';
import type { PoolOutcome } from './execute.js';
import type { PoolPlan } from './plan.js';
import type { PoolSnapshot } from './snapshot.js';
import type { HistoryObservation } from '../state/history.js';

export function poolObservation(snapshot: PoolSnapshot, plan: PoolPlan, outcome: PoolOutcome): HistoryObservation {
  const capacity = outcome.raise.kind === 'raised' ? outcome.raise.to : (snapshot.scaleSet.capacity ?? undefined);
  const deleted = new Set(outcome.deleted);
  const instances = snapshot.instances.map((i) => (deleted.has(i.id) ? { ...i, state: 'Deleting' as const } : i));
  const retired = new Set(outcome.retired);
  const managed = [...snapshot.inventory.rows.filter((r) => !retired.has(r.rowKey)), ...outcome.adopted.map((rowKey) => ({ rowKey }))];
  // VMs a capacity raise created and adopted are not in this pass's listing yet: rows, not VMs.
  const raisedAdopted = outcome.raise.kind === 'raised' ? outcome.raise.adopted : [];
  const counts = countMachines(instances, managed);
  return {
    kind: 'pool',
    fields: { ...(capacity === undefined ? {} : { capacity }), inventory: managed.length + raisedAdopted.length, ...counts },
    events: poolEvents(plan, outcome),
    // Without fast delete a broken VM stays, counted: its count rising is the event.
    risesMarked: { broken: 'VM(s) broken' },
  };
}

function poolEvents(plan: PoolPlan, outcome: PoolOutcome): string[] {
  const events: string[] = [];
  const doomed = new Map(plan.delete.map((d) => [d.id, d]));
  for (const id of outcome.markedFailed) {
    const error = doomed.get(id)?.errorInfo;
    events.push(`${shortId(id)} failed${error ? `: ${error.errorClass} (${error.errorCode})` : ''}`);
  }
  for (const id of outcome.deleted) events.push(`deleted ${shortId(id)}`);
  // A scale-in's VMs, told apart from broken ones: chosen by the pool for a lower wanted count.
  if (outcome.scaledIn.length) events.push(`deleted ${outcome.scaledIn.map(shortId).join(', ')} (scale-in)`);
  if (outcome.parked.length) events.push(`parked ${outcome.parked.map(shortId).join(', ')} (warm buffer)`);
  if (outcome.woken.length) events.push(`started ${outcome.woken.map(shortId).join(', ')} (warm buffer)`);
  // Running VMs taken into the inventory; those a capacity raise created are its own business.
  if (outcome.adopted.length) events.push(`adopted ${outcome.adopted.map(shortId).join(', ')}`);
  if (outcome.switchWritten && plan.safety.kind === 'set') events.push('safety switch tripped');
  if (!plan.switchHolds && plan.safety.kind === 'clear') events.push('safety switch cleared');
  return events;
}
