/**
 * The warm buffer of a pool (`warm: { max }`) and Spot eviction, decided in one piece (pure).
 *
 * - A VM Drover deallocated is *parked*: its row says `Parked`. Parked VMs are not ready and
 *   not scale-in candidates, but they count toward `maxCount`.
 * - Scale-out starts parked VMs before it creates any: their rows say `Waking` before the
 *   start call, and `Running` once a listing shows them running.
 * - Scale-in parks up to `warm.max` of its running, healthy victims instead of deleting them;
 *   broken and not yet running victims are always deleted (protected VMs are never victims).
 * - Parked VMs beyond `warm.max`, or beyond `maxCount` with the active ones, are deleted.
 * - A Spot VM Azure evicted (deallocated, its row not `Parked`) is deleted, so the pool replaces
 *   it; no failure backoff, since nothing failed.
 * - Any other VM stopped or deallocated by someone else (its row not `Parked` or `Waking`) is
 *   not ready and holds no place in the wanted count: it is taken into the buffer as if Drover
 *   had parked it, started only after the VMs Drover parked itself, deleted before them when
 *   the buffer overflows, and giving its place to a scale-in's running victims (sizing.ts). A
 *   protected one is left alone, its place filled all the same.
 *
 * Each mark is written before its call. A crash in between leaves the mark: a later pass whose
 * listing started after it and still shows the VM as it was calls again (start and deallocate
 * are idempotent, so a second call by a concurrent pass costs nothing either).
 */
import type { CachedInstance } from '../cache/instance.js';
import type { Row } from '../state/entity-table.js';
import { isBroken } from './fast-delete.js';
import type { MachineProps } from './inventory.js';
import type { Deletion } from './deletion.js';
import { chooseVictims, compareIds, isProtected, type ScaleInPolicy } from './scale-in.js';

export const PARKED = 'Parked';
export const WAKING = 'Waking';

/** A VM chosen for an action (a start, a deallocate, a delete), with its row as read. */
type Chosen = Deletion;

export const isDeallocated = (i: CachedInstance) => /deallocat/.test(i.powerState);
const onItsWay = (i: CachedInstance) => i.state === 'Deleting' || i.provisioningState === 'Deleting';
/** ARM's priorities whose VMs Azure may evict (`Low` is the older name of Spot). */
export const isEvictable = (priority: string | undefined) => priority === 'Spot' || priority === 'Low';

export interface WarmInput {
  instances: readonly CachedInstance[];
  /** The rows that stay this pass (churn taken out). */
  rows: readonly Row<MachineProps>[];
  /** VMs fast delete takes this pass. */
  doomed: ReadonlySet<string>;
  /** When the listing started (epoch ms): a mark older than it was seen by it. */
  listedAt: number | undefined;
  spot: boolean;
}

export interface WarmView {
  /** Parked VMs that stay parked (or are parked again), listed and not on their way out. */
  parked: CachedInstance[];
  /** Marked Parked, yet a listing newer than the mark shows the VM up: the deallocate did not go out. */
  repark: Chosen[];
  /** Marked Waking, yet a listing newer than the mark shows the VM deallocated: the start did not go out. */
  rewake: Chosen[];
  /** Spot VMs Azure evicted: deleted and replaced. */
  evicted: Chosen[];
  /** Healthy VMs stopped or deallocated by someone else (not evicted): not ready, for the buffer (sizing.ts decides). */
  stopped: CachedInstance[];
  /** Not scale-in candidates: parked and evicted VMs. */
  excluded: Set<string>;
}

const chosen = (i: CachedInstance, row: Row<MachineProps> | undefined): Chosen => ({ id: i.id, name: i.name, row, errorInfo: i.errorInfo });

export function warmView(input: WarmInput): WarmView {
  const byId = new Map(input.instances.map((i) => [i.id, i]));
  const view: WarmView = { parked: [], repark: [], rewake: [], evicted: [], stopped: [], excluded: new Set() };
  for (const row of input.rows) {
    const instance = byId.get(row.rowKey);
    if (!instance || onItsWay(instance) || input.doomed.has(row.rowKey)) continue;
    const status = row.props.providerStatus;
    const seenSinceMark = input.listedAt !== undefined && input.listedAt > row.props.updatedAt;
    if (status === PARKED) {
      view.parked.push(instance);
      view.excluded.add(instance.id);
      if (!isDeallocated(instance) && seenSinceMark) view.repark.push(chosen(instance, row));
    } else if (status === WAKING) {
      if (isDeallocated(instance) && seenSinceMark) view.rewake.push(chosen(instance, row));
    } else if (input.spot && status !== 'Deleting' && status !== 'ProvisioningFailedPermanent' && isDeallocated(instance) && !isProtected(instance)) {
      view.evicted.push(chosen(instance, row));
      view.excluded.add(instance.id);
    } else if (status !== 'Deleting' && status !== 'ProvisioningFailedPermanent' && isStoppedByOthers(instance)) {
      view.stopped.push(instance);
    }
  }
  return view;
}

/**
 * A VM that provisioned without error but is stopped, deallocated, or on its way to either: not
 * ready. (The instance cache's state says `Running` for it: it reads the provisioning state.)
 * One whose provisioning failed is not: without fast delete it is kept as it is for an operator.
 */
export const isStoppedByOthers = (i: CachedInstance) => i.state === 'Running' && i.errorInfo === null && i.provisioningState !== 'Failed' && /stopp|deallocat/.test(i.powerState);

/**
 * Which parked VMs a scale-out starts: as many as the active VMs fall short of `wanted`, lowest
 * instance id first, those Drover parked itself before those someone else stopped (`foreign`).
 */
export function parkedToWake(parked: readonly CachedInstance[], active: number, wanted: number, foreign: ReadonlySet<string> = new Set()): CachedInstance[] {
  const short = Math.max(0, wanted - active);
  const isForeign = (i: CachedInstance) => (foreign.has(i.id) ? 1 : 0);
  return [...parked].sort((a, b) => isForeign(a) - isForeign(b) || compareIds(a, b)).slice(0, short);
}

/** A scale-in's victims split: up to `room` running, healthy ones parked, the others deleted. */
export function splitVictims(victims: readonly CachedInstance[], room: number): { park: CachedInstance[]; remove: CachedInstance[] } {
  const park: CachedInstance[] = [];
  const remove: CachedInstance[] = [];
  for (const v of victims) {
    const parkable = park.length < room && v.errorInfo === null && !isBroken(v) && v.state === 'Running' && !isDeallocated(v) && /running/.test(v.powerState);
    (parkable ? park : remove).push(v);
  }
  return { park, remove };
}

/**
 * Parked VMs beyond `warm.max`, or beyond `maxCount` together with the active VMs (0: no limit):
 * those someone else stopped (`foreign`) first, for Drover knows nothing of why; then by the
 * scale-in policy.
 */
export function excessParked(parked: readonly CachedInstance[], limits: { warmMax: number; maxCount: number; active: number }, policy: ScaleInPolicy, foreign: ReadonlySet<string> = new Set()): CachedInstance[] {
  const overMax = limits.maxCount > 0 ? limits.active + parked.length - limits.maxCount : 0;
  const excess = Math.min(parked.length, Math.max(0, parked.length - limits.warmMax, overMax));
  if (excess === 0) return [];
  const stopped = parked.filter((p) => foreign.has(p.id));
  const own = parked.filter((p) => !foreign.has(p.id));
  const first = chooseVictims(stopped, Math.max(0, stopped.length - excess), policy).victims;
  return [...first, ...chooseVictims(own, own.length - (excess - first.length), policy).victims];
}
