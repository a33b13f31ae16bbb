/**
 * A pool's sizing for one pass (pure): which VMs go, which are parked and which are woken, from
 * the wanted count a target wrote (wanted.ts), the warm buffer (warm-buffer.ts) and the VMs
 * that stay. Decided before the shepherd's decision, which is then asked for the VMs to create
 * beyond the parked ones a scale-out starts.
 *
 * The managed VMs that stay (candidates) are those with a row, and broken ones (which count as
 * managed without one), neither marked Deleting, nor fast-deleted, nor on their way out, nor
 * parked, nor evicted. Above the wanted count, the scale-in's victims (scale-in.ts) are deleted
 * by instance id, up to `warm.max` of them parked instead; below it, parked VMs are started
 * before any capacity is raised.
 */
import type { CachedInstance } from '../cache/instance.js';
import type { Row } from '../state/entity-table.js';
import type { MachineProps } from './inventory.js';
import type { Deletion } from './deletion.js';
import { chooseVictims, isProtected, type MinAge, type ScaleInPolicy } from './scale-in.js';
import type { PoolSnapshot } from './snapshot.js';
import { excessParked, isEvictable, parkedToWake, splitVictims, warmView } from './warm-buffer.js';

export interface SizingSettings {
  maxCount: number;
  scaleInPolicy: ScaleInPolicy;
  warmMax: number;
  /** `scaleIn.minAge` with the pass's clock; absent: no VM is held for its age. */
  minAge?: MinAge;
  /** The Pool target sizing this pool, if one does. */
  sizedBy?: string;
}

export interface Sizing {
  /** The count to ask the shepherd's decision for: the wanted one plus the VMs that stay parked (they count as managed). */
  decisionWanted: number | undefined;
  /** Deleted by instance id: scale-in victims, parked VMs beyond the buffer, evicted Spot VMs, marks whose delete did not go out. */
  remove: Deletion[];
  /** Deallocated into the warm buffer (rows marked Parked first). */
  park: Deletion[];
  /** Started out of the warm buffer before any capacity raise (rows marked Waking first). */
  wake: Deletion[];
  /** Rows the executor writes itself: no status update for them. */
  handled: Set<string>;
  /** Running VMs younger than `scaleIn.minAge` kept although the pool is above the wanted count. */
  heldByMinAge: number;
  /** When the first held VM comes of age (epoch ms); absent: none held. */
  heldUntil?: number;
  lines: string[];
}

const onItsWay = (i: CachedInstance) => i.state === 'Deleting' || i.provisioningState === 'Deleting';

export function planSizing(snapshot: PoolSnapshot, kept: readonly Row<MachineProps>[], doomed: ReadonlySet<string>, settings: SizingSettings): Sizing {
  const { instances, inventory, listedAt } = snapshot;
  const rowById = new Map(kept.map((r) => [r.rowKey, r]));
  const as = (i: CachedInstance): Deletion => ({ id: i.id, name: i.name, row: rowById.get(i.id), errorInfo: i.errorInfo });
  const lines: string[] = [];
  const remove = redeletes(snapshot, kept);
  if (remove.length > 0) lines.push(`${remove.length} VM(s) marked for scale-in are still listed alive: deleting them (again)`);
  const marked = new Set(kept.filter((r) => r.props.providerStatus === 'Deleting').map((r) => r.rowKey));

  const warm = warmView({ instances, rows: kept, doomed, listedAt, spot: isEvictable(snapshot.scaleSet.priority) });
  if (warm.evicted.length > 0) lines.push(`${warm.evicted.length} Spot VM(s) evicted by Azure: deleting them so they are replaced (no backoff: nothing failed)`);
  remove.push(...warm.evicted);

  // Taken over gently: a pool a target sizes neither fills to maxCount nor shrinks before that
  // target has said how many it wants; it holds at what runs.
  // The VMs it runs are all adopted, so that target's first count applies to every one of them.
  const waiting = inventory.wanted === undefined && settings.sizedBy !== undefined;
  // Until then, VMs someone else stopped are left as they are too (they hold their places).
  const stopped = stoppedByOthers(waiting ? [] : warm.stopped, lines);
  const candidates = instances.filter((i) => (rowById.has(i.id) || i.errorInfo !== null) && !marked.has(i.id) && !doomed.has(i.id) && !onItsWay(i) && !warm.excluded.has(i.id) && !stopped.notReady.has(i.id));
  const running = instances.filter((i) => !onItsWay(i) && !doomed.has(i.id) && !warm.excluded.has(i.id)).length;
  const wanted = waiting ? running : inventory.wanted;
  if (waiting) lines.push(`sized by target ${settings.sizedBy}, which has not written a wanted count yet: holding at the ${running} VM(s) it runs`);
  const ceiling = wanted ?? (settings.maxCount > 0 ? settings.maxCount : Number.POSITIVE_INFINITY);
  const { foreign } = stopped;
  const buffer = [...warm.parked, ...stopped.buffer];
  const woken = parkedToWake(buffer, candidates.length, ceiling, foreign);
  if (woken.length > 0) lines.push(`starting ${woken.length} of ${buffer.length} parked VM(s) before creating any`);
  const choice = wanted === undefined ? { victims: [], heldByMinAge: 0, lines: [] } : chooseVictims(candidates, wanted, settings.scaleInPolicy, settings.minAge);
  const victimIds = new Set(choice.victims.map((v) => v.id));
  const stayParked = buffer.filter((p) => !woken.includes(p));
  // A running, healthy victim takes a place in the buffer before a VM someone else stopped keeps
  // it (that one is then beyond the buffer, below): a suspect VM goes before a healthy one.
  const ownParked = stayParked.filter((p) => !foreign.has(p.id)).length;
  const { park, remove: deleted } = splitVictims(choice.victims, Math.max(0, settings.warmMax - ownParked));
  lines.push(...choice.lines);
  if (choice.victims.length > 0) {
    const parking = park.length > 0 ? `parking ${park.length} in the warm buffer (warm.max ${settings.warmMax}), ` : '';
    lines.push(`${candidates.length} VMs above the wanted ${wanted}: ${parking}deleting ${deleted.length} by instance id`);
  }
  remove.push(...deleted.map(as));

  const active = candidates.length - choice.victims.length + woken.length;
  const excess = excessParked(stayParked, { warmMax: Math.max(0, settings.warmMax - park.length), maxCount: settings.maxCount, active: active + park.length }, settings.scaleInPolicy, foreign);
  if (excess.length > 0) lines.push(`${excess.length} parked VM(s) beyond the warm buffer (warm.max ${settings.warmMax}, maxCount ${settings.maxCount || 'no limit'}): deleting them`);
  remove.push(...excess.map(as));

  const excessIds = new Set(excess.map((e) => e.id));
  const wokenIds = new Set(woken.map((w) => w.id));
  const repark = warm.repark.filter((r) => !wokenIds.has(r.id) && !excessIds.has(r.id));
  const rewake = warm.rewake.filter((r) => !victimIds.has(r.id));
  if (repark.length > 0) lines.push(`${repark.length} VM(s) marked Parked are still listed running: deallocating them (again)`);
  if (rewake.length > 0) lines.push(`${rewake.length} VM(s) marked Waking are still listed deallocated: starting them (again)`);
  // Someone else's VMs that stay in the buffer are marked Parked by a deallocate (a no-op on a
  // deallocated VM; a stopped one stops costing its compute).
  const adopted = stayParked.filter((p) => foreign.has(p.id) && !excessIds.has(p.id));
  const sizing = { remove, park: [...repark, ...adopted.map(as), ...park.map(as)], wake: [...rewake, ...woken.map(as)] };
  const handled = new Set([...sizing.remove, ...sizing.park, ...sizing.wake].map((d) => d.id));
  // Managed VMs that are not candidates count on top of the wanted ones: the parked that stay,
  // protected VMs someone else stopped (left alone, their places filled), and the VMs on their way
  // out, which the decision counts as managed until the listing drops them but which serve nothing.
  // While a takeover holds at what runs (no target's count yet), there is no wanted count to stand for.
  const leaving = wanted === undefined || waiting ? 0 : leavingCount(instances, marked);
  if (leaving > 0) lines.push(`${leaving} VM(s) still listed on their way out: counted on top of the wanted ${wanted}, not in its place`);
  const decisionWanted = wanted === undefined ? undefined : wanted + stayParked.length - excess.length + stopped.idle.length + leaving;
  return { ...sizing, decisionWanted, handled, heldByMinAge: choice.heldByMinAge, ...('heldUntil' in choice && choice.heldUntil !== undefined ? { heldUntil: choice.heldUntil } : {}), lines };
}

/**
 * The listed VMs on their way out: ARM lists them Deleting (a scale-in's, a fast delete's, or
 * someone else's), or their rows are marked for a scale-in whose delete is going out again. A
 * raise right after a scale-in is then not short by the VMs still leaving.
 */
function leavingCount(instances: readonly CachedInstance[], marked: ReadonlySet<string>): number {
  return instances.filter((i) => onItsWay(i) || marked.has(i.id)).length;
}

/**
 * VMs someone else stopped, none of them a candidate (`notReady`): protected ones are left alone
 * (`idle`), the others (`buffer`, their ids `foreign`) go to the warm buffer. Says so in `lines`.
 */
function stoppedByOthers(stopped: readonly CachedInstance[], lines: string[]) {
  const buffer = stopped.filter((i) => !isProtected(i));
  const idle = stopped.filter(isProtected);
  if (stopped.length > 0) {
    const left = idle.length > 0 ? `, ${idle.length} protected left as they are` : '';
    lines.push(`${stopped.length} VM(s) stopped or deallocated by someone else are not ready and hold no place in the wanted count: ${buffer.length} taken into the warm buffer${left}`);
  }
  return { buffer, idle, foreign: new Set(buffer.map((i) => i.id)), notReady: new Set(stopped.map((i) => i.id)) };
}

/** Marked rows whose delete did not go out: a listing newer than the mark still shows the VM alive. */
function redeletes(snapshot: PoolSnapshot, kept: readonly Row<MachineProps>[]): Deletion[] {
  const byId = new Map(snapshot.instances.map((i) => [i.id, i]));
  const out: Deletion[] = [];
  for (const row of kept) {
    if (row.props.providerStatus !== 'Deleting') continue;
    const instance = byId.get(row.rowKey);
    const listedSince = snapshot.listedAt !== undefined && snapshot.listedAt > row.props.updatedAt;
    if (instance && !onItsWay(instance) && listedSince) out.push({ id: instance.id, name: instance.name, row, errorInfo: instance.errorInfo });
  }
  return out;
}
