/** Machines and inventory rows as the upstream provisioner tables write them. */
import type { Availability, InventoryRow, Machine, ProviderId, ProviderStatus } from '../../../src/pool/machine.js';

export function machine(id: ProviderId, availability: Availability = 'KnownUnused', failed = false): Machine {
  return { id, addr: '', availability, failed };
}

/** Unused, used, possibly used, and used-but-failed provider machines. */
export const U = (id: ProviderId) => machine(id, 'KnownUnused');
export const K = (id: ProviderId) => machine(id, 'KnownUsed');
export const P = (id: ProviderId) => machine(id, 'PossiblyUsed');
export const KF = (id: ProviderId) => machine(id, 'KnownUsed', true);

export function row(providerId: ProviderId, providerStatus: ProviderStatus | null = 'Running'): InventoryRow {
  return { providerId, providerStatus, address: null, createdAt: 0, updatedAt: 0 };
}

export const ids = (prefix: string, count: number, from = 1): ProviderId[] =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(from + i).padStart(2, '0')}`);
