/**
 * One pass over a pool, decided in one piece (pure): the snapshot in, every action and the
 * lines that explain it out. Nothing here reads or writes; `execute.ts` carries the plan out.
 *
 * The heart is the shepherd's decision, `decideProvisioning` (src/pool/provisioning.ts):
 * availability, safety switch, `maxCount`, chunk. The Azure parts compose around it:
 * - churn first: inventory machines whose VMs are provably gone are retired (churn.ts), so
 *   routine deletions by Azure do not reach the decision as a disagreement;
 * - the scale set's VMs and headroom become the provider's machines (scale-set-machines.ts);
 * - adoption of VMs that already run is bounded by `maxCount` only: the chunk handed to the
 *   decision is widened by the adoptable VMs, which sort before the slots (ids before
 *   `invalid`), so only the slots (new VMs) stay bounded by `chunkSize`;
 * - with fast delete, broken VMs are deleted, their rows marked failed and creations backed off,
 *   and no slot is offered in a pass that starts a backoff;
 * - while the switch holds the plan is the switch's record and nothing else.
 */
import { AZURE_PREFIX, tryProviderIdFromResourceId } from '../cache/ids.js';
import type { CachedInstance } from '../cache/instance.js';
import type { Row } from '../state/entity-table.js';
import { backoffAfterFailure, isBackingOff, type BackoffState } from './backoff.js';
import { decideProvisioning, safetySwitchChange, safetySwitchLines, type ProvisioningDecision, type SafetyChange } from './provisioning.js';
import { inventoryMachine, isValidProviderId, type ProviderStatus } from './machine.js';
import { retirements, type Retirement } from './churn.js';
import { instancesToFastDelete, isBroken } from './fast-delete.js';
import { toInventoryRow, type MachineProps } from './inventory.js';
import { providerStatusOf, scaleSetMachines } from './scale-set-machines.js';
import type { PoolSnapshot } from './snapshot.js';
import type { Deletion } from './deletion.js';
import type { ScaleInPolicy } from './scale-in.js';
import { planSizing, type SizingSettings } from './sizing.js';
import { PARKED, WAKING } from './warm-buffer.js';

export interface PoolSettings {
  name: string;
  /** 0 = no limit. */
  maxCount: number;
  chunkSize: number;
  instanceLimit: number;
  fastDelete: boolean;
  /** Which running VMs a scale-in removes first (scale-in.ts). Default newest. */
  scaleInPolicy?: ScaleInPolicy;
  /** `scaleIn.minAge`: no running, healthy VM younger than this is chosen for scale-in. Default 0 (off). */
  scaleInMinAgeMs?: number;
  /** The warm buffer: at most this many VMs parked instead of deleted (warm-buffer.ts). Default 0. */
  warmMax?: number;
  /** The target that sizes this pool (a Pool target), if one does: until it writes a wanted count, the pool holds. */
  sizedBy?: string;
}

export interface Adoption {
  id: string;
  name: string;
  status: ProviderStatus;
}

export type { Deletion } from './deletion.js';

export interface StatusUpdate {
  row: Row<MachineProps>;
  status: ProviderStatus;
}

export interface PoolPlan {
  /** The shepherd's decision, after churn was taken out. */
  decision: ProvisioningDecision;
  /** True while the views disagree: the plan then holds only `safety`. */
  switchHolds: boolean;
  retire: Retirement[];
  adopt: Adoption[];
  /** Raise `sku.capacity` for new VMs, If-Match `etag`. */
  raise: { from: number; to: number; etag: string } | undefined;
  /** Fast delete: rows marked failed, backoff written, then the VMs deleted. */
  delete: Deletion[];
  /**
   * Scale-in: VMs chosen to go, deleted by instance id. Rows not yet marked are marked Deleting
   * first; a marked row whose VM ARM still lists alive (the call did not go out) is deleted again.
   */
  scaleIn: Deletion[];
  /** Running VMs younger than `scaleIn.minAge` kept above the wanted count (the bound is named MinAge in the lines). */
  heldByMinAge: number;
  /** With VMs held by minAge: when the first comes of age (epoch ms), after which the same views plan differently. */
  heldUntil: number | undefined;
  /** The warm buffer (warm-buffer.ts): VMs deallocated instead of deleted, rows marked Parked first. */
  park: Deletion[];
  /** Parked VMs started before any capacity raise (one creation token each), rows marked Waking first. */
  wake: Deletion[];
  backoff: BackoffState | undefined;
  /** Until when creations back off, whether this plan starts the backoff or one is running. */
  backoffUntil: number | undefined;
  safety: SafetyChange;
  /** ETags of the bookkeeping rows as read (undefined: no row yet). */
  safetyEtag: string | undefined;
  backoffEtag: string | undefined;
  /** Every instance the snapshot listed: a capacity raise adopts only VMs not among them. */
  known: string[];
  statusUpdates: StatusUpdate[];
  /** Inventory rows whose provider id this pool cannot have issued (left alone, logged). */
  skipped: string[];
  /** Why, line by line, for the decision log. */
  lines: string[];
}

/** Whether an inventory row's id is one an Azure scale set can have issued. */
export function isAzureProviderId(id: string): boolean {
  return id.startsWith(`${AZURE_PREFIX}/subscriptions/`) && tryProviderIdFromResourceId(id.slice(AZURE_PREFIX.length)) === id;
}

export function planPool(snapshot: PoolSnapshot, settings: PoolSettings, now: number): PoolPlan {
  const { scaleSet, instances, inventory } = snapshot;
  const { usable, skipped } = parseableRows(inventory.rows, instances);
  const lines: string[] = skipped.map((id) => `inventory row has unparseable provider ID ${JSON.stringify(id)}, skipping it`);

  const retire = retirements(usable, { capacity: scaleSet.capacity, instances, previous: snapshot.previous });
  const retired = new Set(retire.map((r) => r.id));
  const kept = usable.filter((r) => !retired.has(r.rowKey));
  const rowById = new Map(kept.map((r) => [r.rowKey, r]));

  const doomed = settings.fastDelete ? instancesToFastDelete(instances) : [];
  const doomedIds = new Set(doomed.map((i) => i.id));
  const sizing = planSizing(snapshot, kept, doomedIds, sizingSettings(settings, now));
  const backingOff = isBackingOff(inventory.backoff, now);
  const noSlots = backingOff || doomed.length > 0 || scaleSet.etag === undefined;
  const decision = decideMachines(snapshot, settings, kept, rowById, { noSlots, wanted: sizing.decisionWanted });

  const empty = {
    ...noActions(),
    skipped,
    safetyEtag: inventory.safetyRow?.etag,
    backoffEtag: inventory.backoffRow?.etag,
    known: instances.map((i) => i.id),
    heldByMinAge: 0,
    heldUntil: undefined,
    backoffUntil: backingOff ? inventory.backoff?.until : undefined,
  };
  if (decision.kind === 'safetySwitch' || decision.kind === 'invalidAvailability') {
    lines.push(...safetySwitchLines(decision));
    return { ...empty, decision, switchHolds: true, safety: safetySwitchChange(decision, inventory.safety, now), lines };
  }

  const byId = new Map(instances.map((i) => [i.id, i]));
  const { adopt, slots } = bringUpMachines(decision, byId);
  lines.push(...retire.map((r) => r.why));
  if (inventory.safety) lines.push('the views agree again: safety switch cleared');
  lines.push(decision.kind === 'bringUp' ? bringUpLine(decision, adopt.length, slots, settings) : decision.reason);
  const raise = capacityRaise(scaleSet, slots);
  if (backingOff) lines.push(`creations backed off until ${new Date(inventory.backoff!.until).toISOString()} after failed VMs`);

  const fast = fastDeletions(doomed, rowById, inventory.backoff, now);
  lines.push(...fast.lines);
  lines.push(...sizing.lines);
  const updates = statusChanges(kept, byId, (id) => doomedIds.has(id) || sizing.handled.has(id));
  lines.push(...updates.lines);

  return {
    ...empty,
    decision,
    switchHolds: false,
    retire,
    adopt,
    raise,
    delete: fast.deletion,
    scaleIn: sizing.remove,
    heldByMinAge: sizing.heldByMinAge,
    heldUntil: sizing.heldUntil,
    park: sizing.park,
    wake: sizing.wake,
    backoff: fast.backoff,
    backoffUntil: fast.backoff?.until ?? empty.backoffUntil,
    safety: inventory.safety ? { kind: 'clear' } : { kind: 'unchanged' },
    statusUpdates: updates.statusUpdates,
    lines,
  };
}

/** The pool's settings as the sizing (sizing.ts) takes them, `minAge` with the pass's clock. */
function sizingSettings(settings: PoolSettings, now: number): SizingSettings {
  return {
    maxCount: settings.maxCount,
    scaleInPolicy: settings.scaleInPolicy ?? 'newest',
    warmMax: settings.warmMax ?? 0,
    ...(settings.scaleInMinAgeMs ? { minAge: { minAgeMs: settings.scaleInMinAgeMs, now } } : {}),
    ...(settings.sizedBy === undefined ? {} : { sizedBy: settings.sizedBy }),
  };
}

/** The inventory rows this pool can have issued, and the ids of the others (left alone, logged). */
function parseableRows(rows: Row<MachineProps>[], instances: readonly CachedInstance[]): { usable: Row<MachineProps>[]; skipped: string[] } {
  // An id the cache listed was normalised by it: only the others need the (costly) parse.
  const listedIds = new Set(instances.map((i) => i.id));
  const parseable = (id: string) => listedIds.has(id) || isAzureProviderId(id);
  const skipped = rows.filter((r) => !parseable(r.rowKey)).map((r) => r.rowKey);
  const usable = skipped.length === 0 ? rows : rows.filter((r) => parseable(r.rowKey));
  return { usable, skipped };
}

/** The shepherd's decision over the scale set's machines and the kept inventory rows. */
function decideMachines(
  snapshot: PoolSnapshot,
  settings: PoolSettings,
  kept: Row<MachineProps>[],
  rowById: ReadonlyMap<string, Row<MachineProps>>,
  ask: { noSlots: boolean; wanted: number | undefined },
): ProvisioningDecision {
  const { scaleSet, instances } = snapshot;
  const machines = scaleSetMachines({ capacity: scaleSet.capacity, instanceLimit: settings.instanceLimit, instances, noSlots: ask.noSlots, maxSlots: Number.POSITIVE_INFINITY });
  const adoptable = machines.filter((m) => m.availability === 'PossiblyUsed' && !rowById.has(m.id)).length;
  return decideProvisioning(machines, kept.map(toInventoryRow).map(inventoryMachine), {
    maxCount: settings.maxCount,
    chunkSize: settings.chunkSize + adoptable,
    wanted: ask.wanted,
  });
}

/** A bring-up's machines: running VMs to adopt, and how many slots (new VMs) it asks for. */
function bringUpMachines(decision: ProvisioningDecision, byId: ReadonlyMap<string, CachedInstance>): { adopt: Adoption[]; slots: number } {
  const adopt: Adoption[] = [];
  let slots = 0;
  if (decision.kind === 'bringUp') {
    for (const m of decision.machines) {
      if (!isValidProviderId(m.id)) {
        slots++;
        continue;
      }
      const instance = byId.get(m.id);
      adopt.push({ id: m.id, name: instance?.name ?? m.id, status: instance ? providerStatusOf(instance) : 'Unknown' });
    }
  }
  return { adopt, slots };
}

function capacityRaise(scaleSet: PoolSnapshot['scaleSet'], slots: number): PoolPlan['raise'] {
  // Slots are only offered with a known capacity and ETag (scaleSetMachines, noSlots).
  return slots > 0 && scaleSet.capacity !== undefined && scaleSet.etag !== undefined
    ? { from: scaleSet.capacity, to: scaleSet.capacity + slots, etag: scaleSet.etag }
    : undefined;
}

/** Fast delete: the broken VMs to delete, and the backoff their failures start (if any is new). */
function fastDeletions(
  doomed: readonly CachedInstance[],
  rowById: ReadonlyMap<string, Row<MachineProps>>,
  running: BackoffState | undefined,
  now: number,
): { deletion: Deletion[]; backoff: BackoffState | undefined; lines: string[] } {
  const deletion: Deletion[] = doomed.map((i) => ({ id: i.id, name: i.name, row: rowById.get(i.id), errorInfo: i.errorInfo }));
  // One failure per broken VM, not per pass: a VM whose failure was already counted (its delete
  // was refused, or did not go out) is deleted again without backing off again.
  const newlyBroken = deletion.filter((d) => d.row?.props.brokenAt === undefined);
  const backoff = newlyBroken.length > 0 ? backoffAfterFailure(running, now) : undefined;
  const lines: string[] = [];
  if (backoff) lines.push(`${deletion.length} broken VM(s) to delete and replace; no new capacity until ${new Date(backoff.until).toISOString()}`);
  else if (deletion.length > 0) lines.push(`${deletion.length} broken VM(s) already counted: deleting them again, the backoff unchanged`);
  return { deletion, backoff, lines };
}

/** The rows whose stored status no longer matches their VM (`handled`: rows another step already writes). */
function statusChanges(
  kept: Row<MachineProps>[],
  byId: ReadonlyMap<string, CachedInstance>,
  handled: (id: string) => boolean,
): { statusUpdates: StatusUpdate[]; lines: string[] } {
  const statusUpdates: StatusUpdate[] = [];
  for (const row of kept) {
    const instance = byId.get(row.rowKey);
    if (!instance || handled(row.rowKey)) continue;
    const status = providerStatusOf(instance);
    // A parked VM stays Parked while it is deallocated; a waking one Waking until it is listed running.
    if (row.props.providerStatus === PARKED || (row.props.providerStatus === WAKING && status !== 'Running')) continue;
    // A row marked failed stays so until its VM is healthy again (then it serves, and a later
    // failure counts anew); while it is broken or on its way out the mark keeps it excused.
    if (row.props.providerStatus === 'ProvisioningFailedPermanent' && (status !== 'Running' || isBroken(instance))) continue;
    if (status !== row.props.providerStatus) statusUpdates.push({ row, status });
  }
  const recovered = statusUpdates.filter((u) => u.row.props.providerStatus === 'ProvisioningFailedPermanent').length;
  const lines = recovered > 0 ? [`${recovered} VM(s) marked failed are running and healthy again: to be marked Running`] : [];
  return { statusUpdates, lines };
}

/** The action fields of a plan that writes nothing (fresh arrays each call: plans never share them). */
export function noActions(): Pick<PoolPlan, 'safety' | 'retire' | 'adopt' | 'raise' | 'delete' | 'scaleIn' | 'park' | 'wake' | 'backoff' | 'statusUpdates'> {
  return { safety: { kind: 'unchanged' }, retire: [], adopt: [], raise: undefined, delete: [], scaleIn: [], park: [], wake: [], backoff: undefined, statusUpdates: [] };
}

/**
 * Whether carrying the plan out writes nothing at all (pure): only such a plan is recorded, so
 * the pass that skips repeats a decision that changed nothing.
 */
export function changesNothing(plan: PoolPlan): boolean {
  return (
    plan.safety.kind === 'unchanged' &&
    plan.retire.length === 0 &&
    plan.adopt.length === 0 &&
    plan.raise === undefined &&
    plan.delete.length === 0 &&
    plan.scaleIn.length === 0 &&
    plan.park.length === 0 &&
    plan.wake.length === 0 &&
    plan.backoff === undefined &&
    plan.statusUpdates.length === 0
  );
}

/**
 * The bring-up in the pool's own numbers: the decision was asked with the chunk widened by the
 * adoptable VMs (adopting costs no capacity), so its own line would give that sum as the chunk.
 */
function bringUpLine(decision: Extract<ProvisioningDecision, { kind: 'bringUp' }>, adopted: number, created: number, settings: { maxCount: number; chunkSize: number }): string {
  const limit = settings.maxCount === 0 ? 'no limit' : String(settings.maxCount);
  const parts = [adopted > 0 ? `${adopted} running VM(s) to adopt` : '', created > 0 ? `${created} new` : ''].filter(Boolean).join(' and ');
  return `Below managed machine limit (${limit}), bringing up ${decision.machines.length} machines: ${parts} (${decision.managed} managed, ${decision.available} available, chunk ${settings.chunkSize} for new VMs)`;
}
