/**
 * Look-ups per VM in the instance cache: building the list from a listing where every VM is
 * Updating (each one looks up its previous status) and marking half the VMs in one call.
 * CPU per VM at 1,000 and at 10,000 VMs: a linear cost keeps the ratio near 1, a search of
 * the whole list per VM makes it near 10.
 */
import type { VmRecord } from '../src/azure/scale-set-api.js';
import { buildInstances } from '../src/cache/build-instances.js';
import type { CachedInstance } from '../src/cache/instance.js';
import { withInstancesStatus } from '../src/cache/queries.js';
import type { Benchmark, Figure } from './index.js';

const FLAGS = { enableFastDeleteOnFailedProvisioning: true, enableDetailedCSEMessage: true };

function fleet(vms: number): { listing: VmRecord[]; previous: CachedInstance[] } {
  const id = (i: number) => `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/${i}`;
  const listing = Array.from({ length: vms }, (_, i): VmRecord => ({ id: id(i), name: `vmss_${i}`, instanceId: String(i), provisioningState: 'Updating', instanceView: undefined }));
  const previous = Array.from({ length: vms }, (_, i): CachedInstance => ({ id: `azure://${id(i)}`, name: `vmss_${i}`, state: 'Running', errorInfo: null, powerState: 'PowerState/running' }));
  return { listing, previous };
}

/** CPU µs per VM of one build and one mark of half the VMs, best of 5. */
function usPerVm(vms: number): number {
  const { listing, previous } = fleet(vms);
  const half = previous.filter((_, i) => i % 2 === 0).map((i) => i.id);
  let best = Infinity;
  for (let rep = 0; rep < 5; rep++) {
    const start = process.cpuUsage();
    const built = buildInstances(listing, previous, FLAGS).instances;
    withInstancesStatus(built, half, { state: 'Deleting', errorInfo: null });
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / vms);
  }
  return best;
}

function run(): Promise<Figure[]> {
  usPerVm(1_000); // warm-up
  const small = usPerVm(1_000);
  const large = usPerVm(10_000);
  return Promise.resolve([
    { label: 'build and mark, 1,000 VMs', value: small, unit: 'µs/VM' },
    { label: 'build and mark, 10,000 VMs', value: large, unit: 'µs/VM' },
    { label: 'per-VM cost at 10,000 against 1,000 (1 = linear)', value: large / small, unit: '×' },
  ]);
}

const benchmark: Benchmark = { name: 'cache-scans', description: 'instance cache look-ups per VM (CPU, best of 5)', run };
export default benchmark;
