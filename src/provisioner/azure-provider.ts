/**
 * The provisioner's provider for an Azure scale set, on the instance cache. Bringing up an
 * existing instance adopts it (an inventory row). Bringing up a slot only reserves it; `flush`
 * then raises `sku.capacity` once for every slot of the pass (If-Match on the scale set's
 * ETag), refreshes the cache and adopts the new instances. A crash between the capacity write
 * and the adoption loses nothing: the new VMs are either still in flight (counted, see
 * azure-machines.ts) or listed and unmanaged, so the next pass adopts them instead of raising
 * capacity again.
 */
import type { Log } from '../log.js';
import type { ScaleSetApi, ScaleSetInfo } from '../azure/scale-set-api.js';
import type { ScaleSetCache } from '../cache/scale-set-cache.js';
import type { CachedInstance } from '../cache/instance.js';
import { AZURE_PREFIX, tryProviderIdFromResourceId } from '../cache/ids.js';
import { ArmPreconditionFailedError } from '../azure/errors.js';
import { isValidProviderId, type Machine, type ProviderId } from './machine.js';
import type { Provider } from './ports.js';
import { providerStatusOf, scaleSetMachines } from './azure-machines.js';
import type { InventoryStore } from './inventory-store.js';

export interface AzureProviderDeps {
  api: ScaleSetApi;
  cache: ScaleSetCache;
  inventory: InventoryStore;
  log: Log;
}

export interface AzureProviderSettings {
  resourceGroup: string;
  name: string;
  instanceLimit: number;
  maxSlots: number;
  /** Creation backoff in force: existing instances are still adopted, no slot is offered. */
  noSlots: boolean;
}

export type FlushResult =
  | { kind: 'none' }
  | { kind: 'raised'; from: number; to: number; adopted: ProviderId[]; awaiting: number; done: boolean }
  | { kind: 'conflict'; reason: string };

export class AzureProvider implements Provider {
  private scaleSet: ScaleSetInfo | undefined;
  private instances: CachedInstance[] = [];
  private reservedSlots = 0;
  private created = 0;

  constructor(
    private readonly deps: AzureProviderDeps,
    private readonly settings: AzureProviderSettings,
  ) {}

  /** What the last listing saw. */
  get view(): { scaleSet: ScaleSetInfo | undefined; instances: readonly CachedInstance[] } {
    return { scaleSet: this.scaleSet, instances: this.instances };
  }

  async listMachines(signal: AbortSignal): Promise<Machine[]> {
    const { api, cache } = this.deps;
    const scaleSet = await api.getScaleSet(this.settings.resourceGroup, this.settings.name, { abortSignal: signal });
    const view = await cache.validate(scaleSet);
    if (!view.read.ok) throw view.read.error;
    this.scaleSet = scaleSet;
    this.instances = [...view.read.instances];
    return scaleSetMachines({
      capacity: scaleSet.capacity,
      instanceLimit: this.settings.instanceLimit,
      instances: this.instances,
      noSlots: this.settings.noSlots,
      maxSlots: this.settings.maxSlots,
    });
  }

  /** Machines this pass adopted or reserved a slot for. */
  get broughtUp(): number {
    return this.created;
  }

  async createMachine(machine: Machine): Promise<Machine> {
    const brought = await this.bringUp(machine);
    this.created++;
    return brought;
  }

  private async bringUp(machine: Machine): Promise<Machine> {
    if (isValidProviderId(machine.id)) {
      const instance = this.instances.find((i) => i.id === machine.id);
      const adopted = await this.deps.inventory.adopt(machine.id, instance ? providerStatusOf(instance) : 'Unknown', instance?.name);
      if (!adopted) this.deps.log.info(`pool ${this.deps.inventory.pool}: ${machine.id} already had an inventory row`);
      return { ...machine, availability: 'KnownUsed' };
    }
    if (this.scaleSet?.capacity === undefined || this.scaleSet.etag === undefined) {
      throw new Error('the scale set reported no capacity or ETag: a capacity is never computed from an unknown size');
    }
    this.reservedSlots++;
    return { id: `slot:${this.reservedSlots}`, addr: '', availability: 'KnownUsed', failed: false };
  }

  parseProviderId(id: ProviderId): boolean {
    return id.startsWith(`${AZURE_PREFIX}/subscriptions/`) && tryProviderIdFromResourceId(id.slice(AZURE_PREFIX.length)) === id;
  }

  /** Slots reserved by this pass and not yet written to ARM. */
  get pendingSlots(): number {
    return this.reservedSlots;
  }

  /** One capacity write for every reserved slot, then adoption of the VMs it created. */
  async flush(signal?: AbortSignal): Promise<FlushResult> {
    const slots = this.reservedSlots;
    const scaleSet = this.scaleSet;
    if (slots === 0 || !scaleSet || scaleSet.capacity === undefined || scaleSet.etag === undefined) return { kind: 'none' };
    this.reservedSlots = 0;
    const { api, cache, inventory, log } = this.deps;
    const from = scaleSet.capacity;
    const to = from + slots;
    const known = new Set(this.instances.map((i) => i.id));
    let lro;
    try {
      lro = await api.setCapacity(this.settings.resourceGroup, this.settings.name, to, scaleSet.etag, { abortSignal: signal });
    } catch (err) {
      if (err instanceof ArmPreconditionFailedError) {
        return { kind: 'conflict', reason: `the scale set changed since it was read (ETag ${scaleSet.etag}); nothing written, the next pass decides again` };
      }
      throw err;
    }
    log.info(`pool ${inventory.pool}: raised ${scaleSet.name} capacity ${from} → ${to}${lro.done ? '' : ' (ARM still working)'}`);
    const view = await cache.forceUpdate({ ...scaleSet, capacity: to });
    const listed = view.read.ok ? view.read.instances : [];
    // New VMs are those the listing before the raise did not have; an adopt of one that already
    // has a row (none should) simply reports false.
    const fresh = listed.filter((i) => !known.has(i.id) && i.state !== 'Deleting').slice(0, slots);
    const adopted: ProviderId[] = [];
    for (const instance of fresh) {
      if (await inventory.adopt(instance.id, providerStatusOf(instance), instance.name)) adopted.push(instance.id);
    }
    return { kind: 'raised', from, to, adopted, awaiting: slots - fresh.length, done: lro.done };
  }
}
