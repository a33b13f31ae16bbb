/**
 * How a scale set looks to the provisioner (pure). Every listed instance is *possibly used*:
 * the inventory decides whether it is ours. Instances being deleted or carrying error info are
 * used-and-failed: excused from the consistency check, never adopted. VMs the scale set's
 * capacity promises but ARM does not list yet are reported the same way, so they count toward
 * `maxCount` (no second capacity raise for them) without tripping the safety switch. The
 * headroom below the scale set's instance limit is free capacity without an id (slots).
 */
import type { CachedInstance } from '../cache/instance.js';
import { clampReplicas } from '../limits.js';
import { INVALID_PROVIDER_ID, type Machine, type ProviderStatus } from './machine.js';

export const IN_FLIGHT_PREFIX = 'in-flight:';

export interface ScaleSetView {
  /** `sku.capacity`; undefined when ARM did not report it: then no slot is offered. */
  capacity: number | undefined;
  instanceLimit: number;
  instances: readonly CachedInstance[];
  /** Offer no new slots (creation backoff after failed provisioning). */
  noSlots: boolean;
  /** Most slots worth offering in one pass (the pool's chunk size). */
  maxSlots: number;
}

export function inFlightCount(view: Pick<ScaleSetView, 'capacity' | 'instances'>): number {
  if (view.capacity === undefined) return 0;
  const present = view.instances.filter((i) => i.state !== 'Deleting').length;
  // A capacity ARM reports is read within 0..MAX_REPLICAS (here and for the slots): each in-flight VM or slot is a machine in memory.
  return Math.max(0, clampReplicas(view.capacity) - present);
}

export function scaleSetMachines(view: ScaleSetView): Machine[] {
  const machines: Machine[] = view.instances.map((i) =>
    i.state === 'Deleting' || i.errorInfo !== null
      ? { id: i.id, addr: '', availability: 'KnownUsed', failed: true }
      : { id: i.id, addr: '', availability: 'PossiblyUsed', failed: false },
  );
  for (let n = 1; n <= inFlightCount(view); n++) {
    machines.push({ id: `${IN_FLIGHT_PREFIX}${n}`, addr: '', availability: 'KnownUsed', failed: true });
  }
  if (!view.noSlots && view.capacity !== undefined) {
    const slots = Math.min(view.maxSlots, Math.max(0, view.instanceLimit - clampReplicas(view.capacity)));
    for (let n = 0; n < slots; n++) machines.push({ id: INVALID_PROVIDER_ID, addr: '', availability: 'KnownUnused', failed: false });
  }
  return machines;
}

/** The inventory's provider status for what the cache says of an instance. */
export function providerStatusOf(instance: CachedInstance): ProviderStatus {
  if (instance.errorInfo?.errorClass === 'OutOfResources') return 'ProvisioningFailedPermanent';
  switch (instance.state) {
    case 'Creating':
      return 'Provisioning';
    case 'Deleting':
      return 'Missing';
    case 'Running':
      return /stopped|deallocat/.test(instance.powerState) ? 'Stopped' : 'Running';
    default:
      return 'Unknown';
  }
}
