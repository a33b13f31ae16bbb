/** A pool's VMs counted by health, for `drover status` (pure). */
import type { CachedInstance } from '../cache/instance.js';
import type { Row } from '../state/entity-table.js';
import { isBroken } from './fast-delete.js';
import type { MachineProps } from './inventory.js';

export interface MachineCounts {
  /** Managed, running and without error. */
  healthy: number;
  /** Listed with failed provisioning or a failed custom script extension (kept for an operator without fast delete). */
  broken: number;
  creating: number;
  stopped: number;
  deleting: number;
  /** Listed VMs without an inventory row (adopted on the next pass, or the safety switch's business). */
  unmanaged: number;
  /** Inventory rows whose VM is not listed. */
  missing: number;
}

/** `rows`: the inventory's rows (only their keys count: the history passes the rows a pass leaves). */
export function countMachines(instances: readonly CachedInstance[], rows: readonly Pick<Row<MachineProps>, 'rowKey'>[]): MachineCounts {
  const managed = new Set(rows.map((r) => r.rowKey));
  const listed = new Set(instances.map((i) => i.id));
  const counts: MachineCounts = { healthy: 0, broken: 0, creating: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 };
  for (const i of instances) {
    if (!managed.has(i.id) && i.state !== 'Deleting') counts.unmanaged++;
    if (i.state === 'Deleting') counts.deleting++;
    else if (isBroken(i) || i.errorInfo !== null) counts.broken++;
    else if (i.state === 'Creating') counts.creating++;
    else if (/stopped|deallocat/.test(i.powerState)) counts.stopped++;
    else if (managed.has(i.id)) counts.healthy++;
  }
  counts.missing = rows.filter((r) => !listed.has(r.rowKey)).length;
  return counts;
}
