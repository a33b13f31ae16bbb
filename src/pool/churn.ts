/**
 * Routine Azure churn (spot eviction, automatic instance repair, someone scaling in) is not a
 * disagreement between the views: an inventory machine whose VM ARM no longer lists is retired
 * when there is proof the VM is gone. Proof is either that the cache last saw it Deleting (or
 * the row says so), or that the list is complete: ARM lists as many VMs as the scale set's
 * `sku.capacity`, so nothing is hiding. A shorter list is an incomplete view and proves
 * nothing; the row stays and the safety switch decides. Pure.
 */
import type { CachedInstance } from '../cache/instance.js';
import type { Row } from '../state/entity-table.js';
import type { MachineProps } from './inventory.js';
import { vmName } from './vm-names.js';

export interface Retirement {
  id: string;
  /** The row as read: its removal is guarded by this ETag. */
  etag: string;
  why: string;
}

export function isListComplete(capacity: number | undefined, instances: readonly CachedInstance[]): boolean {
  // ARM lowers the capacity as soon as it accepts a delete, so VMs being deleted are not counted.
  return capacity !== undefined && instances.filter((i) => i.state !== 'Deleting').length === capacity;
}

export function retirements(
  rows: readonly Row<MachineProps>[],
  view: { capacity: number | undefined; instances: readonly CachedInstance[]; previous: readonly CachedInstance[] },
): Retirement[] {
  const listed = new Set(view.instances.map((i) => i.id));
  const seenDeleting = new Set(view.previous.filter((i) => i.state === 'Deleting').map((i) => i.id));
  const complete = isListComplete(view.capacity, view.instances);
  const out: Retirement[] = [];
  for (const row of rows) {
    if (listed.has(row.rowKey)) continue;
    const name = vmName({ id: row.rowKey, name: row.props.name });
    if (row.props.providerStatus === 'Deleting') {
      out.push({ id: row.rowKey, etag: row.etag, why: `retired vm ${name}: deleted by scale-in` });
    } else if (row.props.providerStatus === 'ProvisioningFailedPermanent') {
      out.push({ id: row.rowKey, etag: row.etag, why: `retired vm ${name}: deleted after it failed` });
    } else if (seenDeleting.has(row.rowKey) || row.props.providerStatus === 'Missing') {
      out.push({ id: row.rowKey, etag: row.etag, why: `retired vm ${name}: deleted by Azure` });
    } else if (complete) {
      out.push({ id: row.rowKey, etag: row.etag, why: `retired vm ${name}: no longer listed, and ARM lists as many VMs as the capacity` });
    }
  }
  return out;
}
