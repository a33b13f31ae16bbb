/**
 * An in-memory provider with the seed's dummy semantics, used by the tests only (no host or CLI wires it in): a fixed
 * capacity, every listing offering the free part of it as fresh `KnownUnused` machines with random
 * UUIDs, and creation recording the machine as used and writing its inventory row.
 */
import { randomUUID } from 'node:crypto';
import { abortReason, systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import type { InventoryRow, Machine, ProviderId } from './machine.js';
import type { Inventory, Provider } from './ports.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface MemoryProviderOptions {
  /** Machines the provider can ever hold. */
  capacity: number;
  /** Stamps inventory rows. */
  clock?: Clock;
}

/** The inventory a MemoryProvider writes to; also usable on its own with rows put by a test. */
export class MemoryInventory implements Inventory {
  readonly rows: InventoryRow[] = [];

  list(signal: AbortSignal): Promise<InventoryRow[]> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    return Promise.resolve(this.rows.map((row) => ({ ...row })));
  }

  put(row: InventoryRow): void {
    const at = this.rows.findIndex((r) => r.providerId === row.providerId);
    if (at === -1) this.rows.push(row);
    else this.rows[at] = row;
  }
}

export class MemoryProvider implements Provider {
  readonly inventory = new MemoryInventory();
  private readonly used = new Map<ProviderId, Machine>();
  private readonly capacity: number;
  private readonly clock: Clock;

  constructor(options: MemoryProviderOptions) {
    this.capacity = options.capacity;
    this.clock = options.clock ?? systemClock;
  }

  /** Ids of the machines created so far, in creation order. */
  get createdIds(): ProviderId[] {
    return [...this.used.keys()];
  }

  listMachines(signal: AbortSignal): Promise<Machine[]> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    const free = Math.max(0, this.capacity - this.used.size);
    const unused = Array.from({ length: free }, (): Machine => {
      const id = randomUUID();
      return { id, addr: uuidAddress(id), availability: 'KnownUnused', failed: false };
    });
    return Promise.resolve([...[...this.used.values()].map((m) => ({ ...m })), ...unused]);
  }

  createMachine(machine: Machine, signal: AbortSignal): Promise<Machine> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    if (this.used.size >= this.capacity) return Promise.reject(new Error('no capacity left'));
    if (this.used.has(machine.id)) {
      return Promise.reject(new Error(`machine ${machine.id} is already in use`));
    }
    const now = this.clock.now();
    const created: Machine = { ...machine, availability: 'KnownUsed' };
    this.used.set(created.id, created);
    this.inventory.put({
      providerId: created.id,
      providerStatus: 'Running',
      address: created.addr || null,
      createdAt: now,
      updatedAt: now,
    });
    return Promise.resolve({ ...created });
  }

  parseProviderId(id: ProviderId): boolean {
    return UUID.test(id);
  }
}

/** The UUID's 16 bytes read as an IPv6 address, as the seed's dummy machines do. */
function uuidAddress(id: string): string {
  return (id.replace(/-/g, '').match(/.{4}/g) ?? []).join(':');
}
