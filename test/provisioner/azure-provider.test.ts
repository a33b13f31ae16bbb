import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { ScaleSetCache } from '../../src/cache/scale-set-cache.js';
import { AzureProvider } from '../../src/provisioner/azure-provider.js';
import { InventoryStore } from '../../src/provisioner/inventory-store.js';
import { ArmPreconditionFailedError } from '../../src/azure/errors.js';
import type { ScaleSetApi, VmRecord } from '../../src/azure/scale-set-api.js';
import { freshStorage } from '../support/storage.js';
import type { Storage } from '../../src/state/storage.js';

let storage: Storage;
beforeAll(async () => {
  storage = await freshStorage();
});

const RG = 'rg';
const vmId = (scaleSet: string, n: number) => `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/${scaleSet}/virtualMachines/${n}`;
const running = (scaleSet: string, n: number): VmRecord => ({
  id: vmId(scaleSet, n),
  name: `${scaleSet}_${n}`,
  instanceId: String(n),
  provisioningState: 'Succeeded',
  instanceView: { statuses: [{ code: 'PowerState/running' }] },
});

/** A scale set in memory: each capacity raise creates VMs; the calls it got are kept. */
function fakeScaleSet(name: string, start: number, options: { rejectWrite?: boolean } = {}) {
  const vms = Array.from({ length: start }, (_, n) => running(name, n));
  let etag = 'etag-1';
  const writes: { capacity: number; ifMatch: string }[] = [];
  const api: ScaleSetApi = {
    getScaleSet: () => Promise.resolve({ id: `vmss/${name}`, name, location: 'x', orchestrationMode: 'Uniform', capacity: vms.length, etag, provisioningState: 'Succeeded' }),
    listVms: () => Promise.resolve({ vms: [...vms], rateLimit: null }),
    setCapacity: (_rg, _name, capacity, ifMatch) => {
      writes.push({ capacity, ifMatch });
      if (options.rejectWrite || ifMatch !== etag) return Promise.reject(new ArmPreconditionFailedError("setCapacity", `scale set ${name}`, ifMatch));
      while (vms.length < capacity) vms.push(running(name, vms.length));
      etag = `etag-${writes.length + 1}`;
      return Promise.resolve({ done: true });
    },
    deleteInstances: () => Promise.resolve({ done: true }),
  };
  return { api, vms, writes };
}

async function providerFor(name: string, fake: ReturnType<typeof fakeScaleSet>) {
  const clock = new ManualClock();
  const inventory = new InventoryStore(new EntityTable(storage.table('machines')), name, clock);
  const cache = new ScaleSetCache(
    { table: new EntityTable(storage.table('instances')), api: fake.api, clock, log: silentLog, holder: 'test' },
    { key: `${RG}/${name}`, resourceGroup: RG, name, periodMs: 300_000, jitterMs: 0, flags: { enableFastDeleteOnFailedProvisioning: false, enableDetailedCSEMessage: false, enableVmssFlexNodes: false } },
  );
  const provider = new AzureProvider({ api: fake.api, cache, inventory, log: silentLog }, { resourceGroup: RG, name, instanceLimit: 100, maxSlots: 10, noSlots: false });
  return { provider, inventory };
}

describe("the Azure provider's capacity write", () => {
  it('raises capacity once for every reserved slot, If-Match on the ETag it listed, and adopts only the new VMs', async () => {
    const fake = fakeScaleSet('raise', 2);
    const { provider, inventory } = await providerFor('raise', fake);
    const machines = await provider.listMachines(new AbortController().signal);
    const slots = machines.filter((m) => m.availability === 'KnownUnused').slice(0, 3);
    for (const slot of slots) await provider.createMachine(slot);
    const result = await provider.flush();
    expect(fake.writes).toEqual([{ capacity: 5, ifMatch: 'etag-1' }]);
    expect(result).toMatchObject({ kind: 'raised', from: 2, to: 5, awaiting: 0 });
    // The two VMs that were there before the raise are not taken for new ones.
    const rows = (await inventory.list()).map((r) => r.providerId);
    expect(rows).toHaveLength(3);
    expect(rows.every((id) => /virtualMachines\/[234]$/.test(id))).toBe(true);
  });

  it('writes nothing and adopts nothing when the scale set changed since it was read', async () => {
    const fake = fakeScaleSet('conflict', 1, { rejectWrite: true });
    const { provider, inventory } = await providerFor('conflict', fake);
    const machines = await provider.listMachines(new AbortController().signal);
    await provider.createMachine(machines.find((m) => m.availability === 'KnownUnused')!);
    expect(await provider.flush()).toMatchObject({ kind: 'conflict' });
    expect(fake.vms).toHaveLength(1);
    expect(await inventory.list()).toEqual([]);
  });

  it('adopts an existing VM with a row, without any capacity write', async () => {
    const fake = fakeScaleSet('adopt', 2);
    const { provider, inventory } = await providerFor('adopt', fake);
    const machines = await provider.listMachines(new AbortController().signal);
    await provider.createMachine(machines.find((m) => m.availability === 'PossiblyUsed')!);
    expect(await provider.flush()).toEqual({ kind: 'none' });
    expect(fake.writes).toEqual([]);
    expect(await inventory.list()).toHaveLength(1);
  });
});
