/**
 * How decision texts name VMs: by the VM's name as ARM gives it (`vmss-workers_2`, or a Flexible
 * VM's own name), which the portal shows and `drover machines forget` accepts; the decision's
 * object already names the pool, so the scale set need not be repeated. A VM whose name is not
 * known is named by its short id (`rg/vmss/3`), never by its full `azure://` id.
 */
import { shortId, vmNameFromId } from '../cache/ids.js';

export function vmName(vm: { id: string; name?: string | undefined }): string {
  return vm.name || vmNameFromId(vm.id) || shortId(vm.id);
}

/** `ids` by name, the names taken from `known` (the plan's VMs) where it has them. */
export function vmNames(ids: readonly string[], known: readonly { id: string; name?: string }[]): string {
  const byId = new Map(known.map((vm) => [vm.id, vm.name]));
  return ids.map((id) => vmName({ id, name: byId.get(id) })).join(', ');
}
