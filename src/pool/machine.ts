/**
 * What the provisioner knows about a machine, from either side: the provider (the scale set,
 * through the instance cache) or the inventory (the `machines` table, the seed's BMDB).
 */
import { isIP } from 'node:net';

/** Opaque provider id. Only `INVALID_PROVIDER_ID` is invalid: the empty string is a valid id. */
export type ProviderId = string;

/** The id a provider gives capacity that has no machine yet (a scale set's free slot). */
export const INVALID_PROVIDER_ID: ProviderId = 'invalid';

export function isValidProviderId(id: ProviderId): boolean {
  return id !== INVALID_PROVIDER_ID;
}

/**
 * - `KnownUnused`: free capacity, which bringing up turns into a managed machine.
 * - `KnownUsed`: a machine we manage.
 * - `PossiblyUsed`: the provider cannot tell; the inventory decides (see resolvePossiblyUsed).
 * - `Undefined`: a provider bug; the provisioner refuses to decide anything.
 */
export type Availability = 'Undefined' | 'PossiblyUsed' | 'KnownUnused' | 'KnownUsed';

export interface Machine {
  id: ProviderId;
  /** IP address, '' when unknown. */
  addr: string;
  availability: Availability;
  /** A failed machine is excused from the provider/inventory consistency check. */
  failed: boolean;
}

export type ProviderStatus =
  | 'Running'
  | 'Provisioning'
  | 'ProvisioningFailedPermanent'
  | 'Missing'
  | 'Stopped'
  /** Chosen by a scale-in and being deleted by Drover (marked before the delete call). */
  | 'Deleting'
  /** Deallocated by Drover into the pool's warm buffer (marked before the deallocate call). */
  | 'Parked'
  /** Started by Drover out of the warm buffer (marked before the start call), until listed running. */
  | 'Waking'
  | 'Unknown';

/** One row of a pool's inventory. Times are epoch milliseconds. */
export interface InventoryRow {
  providerId: ProviderId;
  /** null when the provider never reported a status for this machine. */
  providerStatus: ProviderStatus | null;
  /** IP address as stored; null or unparseable reads as unknown. */
  address: string | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * Only a permanent provisioning failure, or a scale-in's delete, excuses a row; a row without a
 * status is not failed.
 */
export function isInventoryRowFailed(row: InventoryRow): boolean {
  return row.providerStatus === 'ProvisioningFailedPermanent' || row.providerStatus === 'Deleting';
}

/** An inventory row as a machine: always `KnownUsed`, since the inventory only holds managed machines. */
export function inventoryMachine(row: InventoryRow): Machine {
  const address = row.address ?? '';
  return {
    id: row.providerId,
    addr: isIP(address) === 0 ? '' : address,
    availability: 'KnownUsed',
    failed: isInventoryRowFailed(row),
  };
}

/** Ascending by id, as both listings are ordered before deciding; returns a new array. */
export function sortedById<T>(items: readonly T[], idOf: (item: T) => ProviderId): T[] {
  return [...items].sort((a, b) => {
    const x = idOf(a);
    const y = idOf(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
