/**
 * The provisioner's decision for one pass over a pool: given what the provider lists and what the
 * inventory holds, either refuse (a provider bug, or the two views disagree) or say which machines
 * to bring up. Pure: plain data in, plain data out; the pool's pass (reconcile-pool.ts, execute.ts)
 * does the waiting and the writes. The safety switch is here whole: when it trips (the table's
 * second row), the record it keeps while the views disagree and the lines that explain it.
 *
 * | first match                                        | decision              |
 * | -------------------------------------------------- | --------------------- |
 * | a provider machine resolves to neither used/unused | invalidAvailability   |
 * | a machine known on one side only and not failed    | safetySwitch          |
 * | maxCount > 0 and managed >= maxCount               | atLimit (no scale-down) |
 * | nothing available                                  | noCapacity            |
 * | otherwise                                          | bringUp min(needed, chunkSize) |
 */
import type { Availability, Machine, ProviderId } from './machine.js';
import { isValidProviderId, sortedById } from './machine.js';
import type { SafetySwitchState } from './inventory.js';

export interface ProvisioningLimits {
  /** Most managed machines the pool may hold; 0 means no limit. Never used to scale down. */
  maxCount: number;
  /** Most machines brought up in one pass. */
  chunkSize: number;
  /** The count a target wants (a sized pool); undefined: fill to maxCount. Never used to scale down here. */
  wanted?: number;
}

export type ProvisioningDecision =
  | {
      kind: 'invalidAvailability';
      id: ProviderId;
      addr: string;
      availability: Availability;
      reason: string;
    }
  | {
      kind: 'safetySwitch';
      /** Used in the provider, absent from the inventory, not failed. */
      providerOnly: ProviderId[];
      /** In the inventory, absent from the provider's used machines, not failed. */
      inventoryOnly: ProviderId[];
      reason: string;
    }
  | { kind: 'atLimit'; managed: number; maxCount: number; reason: string }
  | { kind: 'noCapacity'; managed: number; reason: string }
  | {
      kind: 'bringUp';
      /** In the order to create them: ascending provider id. */
      machines: Machine[];
      managed: number;
      available: number;
      /** What the limit still allows, capped by what is available (all of it without a limit); before the chunk. */
      needed: number;
      reason: string;
    };

/** The two decisions the seed reports as errors: nothing is done and the pass counts as failed. */
export function isRefusal(decision: ProvisioningDecision): boolean {
  return decision.kind === 'invalidAvailability' || decision.kind === 'safetySwitch';
}

/**
 * A provider that cannot tell whether a machine is ours says `PossiblyUsed`; the inventory settles
 * it. A machine without a valid id cannot be in the inventory, so it is free capacity.
 */
export function resolvePossiblyUsed(
  machine: Pick<Machine, 'id' | 'availability'>,
  inventory: { has(id: ProviderId): boolean },
): Availability {
  if (machine.availability !== 'PossiblyUsed') return machine.availability;
  if (!isValidProviderId(machine.id)) return 'KnownUnused';
  return inventory.has(machine.id) ? 'KnownUsed' : 'KnownUnused';
}

export function decideProvisioning(
  providerMachines: readonly Machine[],
  inventoryMachines: readonly Machine[],
  limits: ProvisioningLimits,
): ProvisioningDecision {
  const inventory = new Map<ProviderId, Machine>();
  for (const machine of sortedById(inventoryMachines, (m) => m.id)) inventory.set(machine.id, machine);

  const available: Machine[] = [];
  const used = new Map<ProviderId, Machine>();
  for (const machine of sortedById(providerMachines, (m) => m.id)) {
    const availability = resolvePossiblyUsed(machine, inventory);
    if (availability === 'KnownUnused') {
      available.push(machine);
    } else if (availability === 'KnownUsed') {
      used.set(machine.id, machine);
    } else {
      return {
        kind: 'invalidAvailability',
        id: machine.id,
        addr: machine.addr,
        availability,
        reason: `machine has invalid availability (ID: ${machine.id}, Addr: ${machine.addr}): ${availability}`,
      };
    }
  }

  // Failed machines are excused on both sides, but only the provider's count as managed: a
  // failed provider machine still occupies capacity, a failed inventory row may be long gone.
  const providerOnly: ProviderId[] = [];
  let managed = 0;
  for (const [id, machine] of used) {
    if (!inventory.has(id) && !machine.failed) providerOnly.push(id);
    else managed++;
  }
  const inventoryOnly = [...inventory.values()].filter((m) => !used.has(m.id) && !m.failed).map((m) => m.id);

  if (providerOnly.length > 0 || inventoryOnly.length > 0) {
    return {
      kind: 'safetySwitch',
      providerOnly,
      inventoryOnly,
      reason:
        `fatal discrepancy between inventory and provider, refusing to do any work: ` +
        `${providerOnly.length} used in the provider but missing from the inventory, ` +
        `${inventoryOnly.length} in the inventory but missing from the provider`,
    };
  }

  const { maxCount, chunkSize, wanted } = limits;
  if (wanted !== undefined && wanted <= managed && (maxCount === 0 || wanted < maxCount)) {
    return { kind: 'atLimit', managed, maxCount: wanted, reason: `Not bringing up more machines (at the wanted ${wanted} machines, ${managed} managed)` };
  }
  if (maxCount !== 0 && maxCount <= managed) {
    return {
      kind: 'atLimit',
      managed,
      maxCount,
      reason: `Not bringing up more machines (at limit of ${maxCount} machines, ${managed} managed)`,
    };
  }
  if (available.length === 0) {
    return { kind: 'noCapacity', managed, reason: 'No more capacity available.' };
  }

  const ceiling = wanted === undefined ? maxCount : maxCount === 0 ? wanted : Math.min(maxCount, wanted);
  const needed = wanted === undefined && maxCount === 0 ? available.length : Math.min(ceiling - managed, available.length);
  const machines = available.slice(0, Math.min(needed, chunkSize));
  if (machines.length === 0) {
    return { kind: 'noCapacity', managed, reason: 'No more unused machines available, or all filtered out.' };
  }
  const limitName = maxCount === 0 ? 'no limit' : String(maxCount);
  return {
    kind: 'bringUp',
    machines,
    managed,
    available: available.length,
    needed,
    reason:
      `Below managed machine limit (${limitName}), bringing up ${machines.length} machines ` +
      `(${managed} managed, ${available.length} available, chunk ${chunkSize})`,
  };
}

/** What the plan does with the switch's record: set it while the views disagree, clear it once they agree. */
export type SafetyChange =
  | { kind: 'unchanged' }
  | { kind: 'set'; state: SafetySwitchState }
  | { kind: 'clear' };

export type SwitchDecision = Extract<ProvisioningDecision, { kind: 'safetySwitch' | 'invalidAvailability' }>;

function switchState(decision: SwitchDecision): Omit<SafetySwitchState, 'since'> {
  return decision.kind === 'safetySwitch' ? { providerOnly: decision.providerOnly, inventoryOnly: decision.inventoryOnly } : { providerOnly: [decision.id], inventoryOnly: [] };
}

/** The switch's record while the views disagree: unchanged when the stored one says the same. */
export function safetySwitchChange(decision: SwitchDecision, stored: SafetySwitchState | undefined, now: number): SafetyChange {
  const next: SafetySwitchState = { ...switchState(decision), since: stored?.since ?? now };
  const unchanged = stored !== undefined && JSON.stringify(stored) === JSON.stringify(next);
  return unchanged ? { kind: 'unchanged' } : { kind: 'set', state: next };
}

export function safetySwitchLines(decision: SwitchDecision): string[] {
  const state = switchState(decision);
  return [
    decision.reason,
    ...state.providerOnly.map((id) => `provider machine has no corresponding machine in inventory (PID: ${id})`),
    ...state.inventoryOnly.map((id) => `machine in the inventory but missing in the provider, and the list is incomplete (PID: ${id})`),
    'nothing is written to ARM or the inventory until the views agree again',
  ];
}
