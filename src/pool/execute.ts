/**
 * Carries a pool plan out, in a fixed order, and records only what happened:
 *
 * 1. while the safety switch holds: the switch's own record, nothing else;
 * 2. the inventory, in ⌈N/100⌉ transactions: rows of broken VMs marked failed and the backoff
 *    (before any delete, so a crash after it trips no switch), retirements, adoptions, status
 *    updates, the switch cleared;
 * 3. the warm buffer's wakes: one creation token per parked VM, their rows marked Waking (one
 *    more batch), then the start calls, in chunks of `chunkSize`; the capacity raise only when
 *    every wake went out: one draw of the creation tokens, then `sku.capacity` written under the
 *    scale set's ETag, the cache refreshed and the new VMs adopted (one more batch);
 * 4. fast delete of broken VMs whose rows are marked, and their cache rows marked Deleting;
 * 5. scale-in: one `deletionRate` token per VM, the rows of the VMs granted marked Deleting (one
 *    more batch), then `deleteInstances` by instance id, one call per chunk of `chunkSize`, and
 *    their cache rows marked Deleting. A crash after the mark leaves the row marked: a later
 *    pass whose listing still shows the VM alive deletes it; one after the call finds it
 *    Deleting or gone, and retires the row. Capacity is never written down;
 * 6. parking: one `deletionRate` token per VM, rows marked Parked, then the deallocate calls in
 *    chunks of `chunkSize`. A crash after a Parked or Waking mark is repaired the same way: a
 *    later listing that still shows the VM as it was calls again (warm-buffer.ts).
 *
 * The lease is checked before each write phase, not per row. Every row write is guarded by the
 * ETag it was read with (inserts by the row's absence).
 */
import type { LroResult, PowerChange } from '../azure/scale-set-api.js';
import { ArmPreconditionFailedError } from '../azure/errors.js';
import type { CachedInstance } from '../cache/instance.js';
import type { Props } from '../state/entity-table.js';
import { BACKOFF_KEY, SAFETY_KEY, type MachineProps, type SafetySwitchState } from './inventory.js';
import { providerStatusOf } from './scale-set-machines.js';
import type { Adoption, Deletion, PoolPlan, StatusUpdate } from './plan.js';
import type { RowResult, RowWrite, RowWriter } from './row-writer.js';
import type { Retirement } from './churn.js';

/** What the executor needs, and nothing more. */
export interface PoolPassDeps {
  rows: RowWriter;
  arm: {
    setCapacity(capacity: number, ifMatchEtag: string): Promise<LroResult>;
    deleteInstances(deletions: readonly Deletion[]): Promise<LroResult>;
    /** Starts or deallocates these VMs (never none: the executor calls only with some). */
    setPower(power: PowerChange, vms: readonly Deletion[]): Promise<LroResult>;
  };
  cache: {
    /** Lists again after a capacity raise; the instances now listed. */
    relist(capacity: number): Promise<readonly CachedInstance[]>;
    markDeleting(deletions: readonly Deletion[]): Promise<void>;
    /** Lists again after starts or deallocates, so what reads the cache (a Pool target's ready count) sees them. */
    relistAfterPower(): Promise<void>;
  };
  lease: { check(): Promise<void> };
  /** Draws up to `wanted` creation tokens within the pass's bounded wait; how many it got. */
  creations: { draw(wanted: number): Promise<number> };
  /** The same for scale-in deletes (`deletionRate`), one token per VM. */
  deletions: { draw(wanted: number): Promise<number> };
  /** Most VMs per `deleteInstances` call of a scale-in. */
  chunkSize: number;
  /** Asks for another pass soon (new VMs not listed yet, an LRO still running). */
  requeue(reason: string): Promise<void>;
  now(): number;
}

export type RaiseOutcome =
  | { kind: 'none' }
  | { kind: 'rateLimited'; wanted: number }
  | { kind: 'lostRace'; from: number; to: number }
  | { kind: 'raised'; from: number; to: number; wanted: number; adopted: string[]; awaiting: number; done: boolean };

export interface PoolOutcome {
  switchWritten: boolean;
  retired: string[];
  adopted: string[];
  statusesWritten: number;
  /** Rows marked failed whose VMs were healthy again, marked Running. */
  recovered: string[];
  markedFailed: string[];
  raise: RaiseOutcome;
  deleted: string[];
  deleteDone: boolean;
  /** VMs a scale-in deleted by instance id, how many calls it took, and how many waited for tokens. */
  scaledIn: string[];
  scaleInCalls: number;
  scaleInWaiting: number;
  /** Parked VMs started, and how many waited for creation tokens. */
  woken: string[];
  wakeWaiting: number;
  /** VMs deallocated into the warm buffer, and how many waited for deletion tokens. */
  parked: string[];
  parkWaiting: number;
  /** Rows that could not be written, with why: `id: reason`. */
  rowFailures: string[];
  /** Whether any of them failed for another reason than the row itself (the store failed). */
  storeFailed: boolean;
}

type Tagged = { write: RowWrite; then?: (r: RowResult) => void };

export async function executePlan(plan: PoolPlan, deps: PoolPassDeps): Promise<PoolOutcome> {
  const outcome = noOutcome();
  const now = deps.now();
  if (plan.switchHolds) {
    if (plan.safety.kind === 'set') await writeSafetySwitch(plan.safety.state, plan.safetyEtag, deps, outcome);
    return outcome;
  }

  // Phase 2: the inventory.
  const { marked, backoffOk } = await writeInventory(plan, now, deps, outcome);
  outcome.markedFailed = [...marked];

  // Phase 3: parked VMs started, then new capacity (only once every wake went out: a VM is
  // created only when no parked one is left to start).
  const allWoken = await wake(plan, deps, outcome);
  if (plan.raise && allWoken) outcome.raise = await raiseCapacity(plan, plan.raise, deps, outcome);

  // Phase 4: fast delete, only of VMs whose rows say failed and with the backoff recorded.
  const doomed = backoffOk ? plan.delete.filter((d) => marked.has(d.id)) : [];
  if (doomed.length > 0) await fastDelete(doomed, deps, outcome);

  // Phase 5: scale-in.
  if (plan.scaleIn.length > 0) await scaleIn(plan, deps, outcome);
  // Phase 6: the warm buffer's parking.
  await park(plan, deps, outcome);
  // A raise listed again already (and moved the capacity the scale set read has).
  if ((outcome.woken.length > 0 || outcome.parked.length > 0) && outcome.raise.kind !== 'raised') await deps.cache.relistAfterPower();
  return outcome;
}

/** The outcome of a pass that has done nothing yet. */
function noOutcome(): PoolOutcome {
  return {
    switchWritten: false,
    retired: [],
    adopted: [],
    statusesWritten: 0,
    recovered: [],
    markedFailed: [],
    raise: { kind: 'none' },
    deleted: [],
    deleteDone: true,
    scaledIn: [],
    scaleInCalls: 0,
    scaleInWaiting: 0,
    woken: [],
    wakeWaiting: 0,
    parked: [],
    parkWaiting: 0,
    rowFailures: [],
    storeFailed: false,
  };
}

const json = (value: unknown): Props => ({ json: JSON.stringify(value) });

/** Phase 1: the safety switch's own record, while it holds. */
async function writeSafetySwitch(state: SafetySwitchState, etag: string | undefined, deps: PoolPassDeps, outcome: PoolOutcome): Promise<void> {
  await deps.lease.check();
  const props = json(state);
  const [r] = await deps.rows.write([
    etag === undefined ? { op: 'insert', key: SAFETY_KEY, props } : { op: 'replace', key: SAFETY_KEY, etag, props },
  ]);
  outcome.switchWritten = r?.ok ?? false;
  if (r && !r.ok) outcome.rowFailures.push(`${SAFETY_KEY}: ${r.reason}`);
}

/**
 * Phase 2: every inventory write of the plan, in one phase. Which broken VMs' rows now say
 * failed, and whether the backoff (if the plan starts one) was recorded.
 */
async function writeInventory(plan: PoolPlan, now: number, deps: PoolPassDeps, outcome: PoolOutcome): Promise<{ marked: Set<string>; backoffOk: boolean }> {
  const marked = new Set<string>();
  const backoff = { ok: plan.backoff === undefined };
  const writes: Tagged[] = [
    ...failureMarks(plan.delete, now, marked),
    ...backoffWrites(plan, backoff),
    ...retirementWrites(plan.retire, outcome),
    ...adoptionWrites(plan.adopt, now, outcome),
    ...statusWrites(plan.statusUpdates, now, outcome),
  ];
  if (plan.safety.kind === 'clear' && plan.safetyEtag !== undefined) writes.push({ write: { op: 'delete', key: SAFETY_KEY, etag: plan.safetyEtag } });
  await writePhase(deps, writes, outcome);
  return { marked, backoffOk: backoff.ok };
}

/** Rows of broken VMs marked failed (their VMs are deleted only once `marked` holds them). */
function failureMarks(deletions: readonly Deletion[], now: number, marked: Set<string>): Tagged[] {
  return deletions.map((d) => {
    const props: MachineProps = { ...(d.row?.props ?? { createdAt: now, name: d.name }), providerStatus: 'ProvisioningFailedPermanent', updatedAt: now, brokenAt: d.row?.props.brokenAt ?? now };
    return {
      write: d.row ? { op: 'replace', key: d.id, etag: d.row.etag, props } : { op: 'insert', key: d.id, props },
      then: (r: RowResult) => (r.ok ? marked.add(d.id) : undefined),
    };
  });
}

function backoffWrites(plan: PoolPlan, recorded: { ok: boolean }): Tagged[] {
  if (!plan.backoff) return [];
  return [{
    write: plan.backoffEtag !== undefined ? { op: 'replace', key: BACKOFF_KEY, etag: plan.backoffEtag, props: json(plan.backoff) } : { op: 'insert', key: BACKOFF_KEY, props: json(plan.backoff) },
    then: (r) => (recorded.ok = r.ok),
  }];
}

function retirementWrites(retirements: readonly Retirement[], outcome: PoolOutcome): Tagged[] {
  return retirements.map((r) => ({ write: { op: 'delete', key: r.id, etag: r.etag }, then: (res: RowResult) => (res.ok ? outcome.retired.push(r.id) : undefined) }));
}

function adoptionWrites(adoptions: readonly Adoption[], now: number, outcome: PoolOutcome): Tagged[] {
  return adoptions.map((a) => ({
    write: { op: 'insert', key: a.id, props: { providerStatus: a.status, name: a.name, createdAt: now, updatedAt: now } satisfies MachineProps },
    then: (r: RowResult) => (r.ok ? outcome.adopted.push(a.id) : undefined),
  }));
}

function statusWrites(updates: readonly StatusUpdate[], now: number, outcome: PoolOutcome): Tagged[] {
  return updates.map((u) => ({
    // A VM healthy again leaves its failure behind: a later one backs creations off anew.
    write: { op: 'replace', key: u.row.rowKey, etag: u.row.etag, props: { ...u.row.props, providerStatus: u.status, updatedAt: now, brokenAt: u.status === 'Running' ? undefined : u.row.props.brokenAt } },
    then: (r: RowResult) => {
      if (!r.ok) return;
      outcome.statusesWritten++;
      if (u.row.props.providerStatus === 'ProvisioningFailedPermanent') outcome.recovered.push(u.row.rowKey);
    },
  }));
}

/** Phase 4: the broken VMs deleted, their cache rows marked Deleting. */
async function fastDelete(doomed: readonly Deletion[], deps: PoolPassDeps, outcome: PoolOutcome): Promise<void> {
  await deps.lease.check();
  const lro = await deps.arm.deleteInstances(doomed);
  outcome.deleted = doomed.map((d) => d.id);
  outcome.deleteDone = lro.done;
  await deps.cache.markDeleting(doomed);
  if (!lro.done) await deps.requeue('check on a delete ARM is still working on');
}

/** Starts the parked VMs granted creation tokens; whether all of the plan's went out. */
async function wake(plan: PoolPlan, deps: PoolPassDeps, outcome: PoolOutcome): Promise<boolean> {
  if (plan.wake.length === 0) return true;
  const granted = await deps.creations.draw(plan.wake.length);
  const result = await markThenCall(plan.wake.slice(0, granted), 'Waking', (chunk) => deps.arm.setPower('start', chunk), deps, outcome);
  outcome.woken = result.called;
  outcome.wakeWaiting = plan.wake.length - granted;
  if (!result.done || outcome.wakeWaiting > 0) await deps.requeue(outcome.wakeWaiting > 0 ? 'go on starting parked VMs the creation rate held back' : 'check on a start ARM is still working on');
  return result.called.length === plan.wake.length;
}

async function park(plan: PoolPlan, deps: PoolPassDeps, outcome: PoolOutcome): Promise<void> {
  if (plan.park.length === 0) return;
  const granted = await deps.deletions.draw(plan.park.length);
  const result = await markThenCall(plan.park.slice(0, granted), 'Parked', (chunk) => deps.arm.setPower('deallocate', chunk), deps, outcome);
  outcome.parked = result.called;
  outcome.parkWaiting = plan.park.length - granted;
  if (!result.done || outcome.parkWaiting > 0) await deps.requeue(outcome.parkWaiting > 0 ? 'go on parking VMs the deletion rate held back' : 'check on a deallocate ARM is still working on');
}

/**
 * Marks the rows with `status` (one batch; rows already so are not written again), then makes
 * the call for the VMs whose rows say so, in chunks of `chunkSize`: a row another pass wrote in
 * between keeps its VM out of the call.
 */
async function markThenCall(
  vms: readonly Deletion[],
  status: 'Waking' | 'Parked',
  call: (chunk: readonly Deletion[]) => Promise<LroResult>,
  deps: PoolPassDeps,
  outcome: PoolOutcome,
): Promise<{ called: string[]; done: boolean }> {
  const now = deps.now();
  const marked = new Set(vms.filter((d) => d.row?.props.providerStatus === status).map((d) => d.id));
  const writes: Tagged[] = vms
    .filter((d) => !marked.has(d.id))
    .map((d) => {
      const props: MachineProps = { ...(d.row?.props ?? { createdAt: now, name: d.name }), providerStatus: status, updatedAt: now };
      return { write: d.row ? { op: 'replace', key: d.id, etag: d.row.etag, props } : { op: 'insert', key: d.id, props }, then: (r: RowResult) => (r.ok ? marked.add(d.id) : undefined) };
    });
  await writePhase(deps, writes, outcome);
  const going = vms.filter((d) => marked.has(d.id));
  let done = true;
  for (let i = 0; i < going.length; i += deps.chunkSize) {
    const chunk = going.slice(i, i + deps.chunkSize);
    await deps.lease.check();
    done = (await call(chunk)).done && done;
  }
  return { called: going.map((d) => d.id), done };
}

async function scaleIn(plan: PoolPlan, deps: PoolPassDeps, outcome: PoolOutcome): Promise<void> {
  const granted = await deps.deletions.draw(plan.scaleIn.length);
  const chosen = plan.scaleIn.slice(0, granted);
  outcome.scaleInWaiting = plan.scaleIn.length - chosen.length;
  const now = deps.now();
  const marked = new Set<string>();
  await writePhase(
    deps,
    chosen.map((d) => {
      const props: MachineProps = { ...(d.row?.props ?? { createdAt: now, name: d.name }), providerStatus: 'Deleting', updatedAt: now };
      return {
        write: d.row ? { op: 'replace', key: d.id, etag: d.row.etag, props } : { op: 'insert', key: d.id, props },
        then: (r: RowResult) => (r.ok ? marked.add(d.id) : undefined),
      };
    }),
    outcome,
  );
  // Only VMs whose rows say Deleting: a row another pass wrote in between keeps its VM.
  const going = chosen.filter((d) => marked.has(d.id));
  let done = true;
  for (let i = 0; i < going.length; i += deps.chunkSize) {
    const chunk = going.slice(i, i + deps.chunkSize);
    await deps.lease.check();
    const lro = await deps.arm.deleteInstances(chunk);
    outcome.scaleInCalls++;
    outcome.scaledIn.push(...chunk.map((d) => d.id));
    done &&= lro.done;
    await deps.cache.markDeleting(chunk);
  }
  if (!done || outcome.scaleInWaiting > 0) await deps.requeue(outcome.scaleInWaiting > 0 ? 'go on with a scale-in the deletion rate held back' : 'check on a scale-in ARM is still working on');
}

async function writePhase(deps: PoolPassDeps, writes: Tagged[], outcome: PoolOutcome): Promise<void> {
  if (writes.length === 0) return;
  await deps.lease.check();
  const results = await deps.rows.write(writes.map((w) => w.write));
  results.forEach((r, i) => {
    const w = writes[i]!;
    w.then?.(r);
    if (r.ok) return;
    outcome.rowFailures.push(`${w.write.key}: ${r.reason}`);
    if (r.unexpected) outcome.storeFailed = true;
  });
}

async function raiseCapacity(plan: PoolPlan, raise: NonNullable<PoolPlan['raise']>, deps: PoolPassDeps, outcome: PoolOutcome): Promise<RaiseOutcome> {
  const wanted = raise.to - raise.from;
  const granted = await deps.creations.draw(wanted);
  if (granted === 0) return { kind: 'rateLimited', wanted };
  const to = raise.from + granted;
  await deps.lease.check();
  let lro: LroResult;
  try {
    lro = await deps.arm.setCapacity(to, raise.etag);
  } catch (err) {
    if (err instanceof ArmPreconditionFailedError) return { kind: 'lostRace', from: raise.from, to };
    throw err;
  }
  // New VMs are those the snapshot did not list; adopting one that already has a row fails alone.
  const known = new Set(plan.known);
  const listed = await deps.cache.relist(to);
  const fresh = listed.filter((i) => !known.has(i.id) && i.state !== 'Deleting').slice(0, granted);
  const adopted: string[] = [];
  const now = deps.now();
  await writePhase(
    deps,
    fresh.map((i) => ({
      write: { op: 'insert', key: i.id, props: { providerStatus: providerStatusOf(i), name: i.name, createdAt: now, updatedAt: now } satisfies MachineProps },
      then: (r: RowResult) => (r.ok ? adopted.push(i.id) : undefined),
    })),
    outcome,
  );
  const awaiting = granted - fresh.length;
  if (awaiting > 0 || !lro.done) await deps.requeue('adopt the VMs of a capacity raise');
  return { kind: 'raised', from: raise.from, to, wanted, adopted, awaiting, done: lro.done };
}
