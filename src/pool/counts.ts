/** A pool's VMs counted by health, for `drover status` (pure). */
import type { CachedInstance } from '../cache/instance.js';
import type { Row } from '../state/entity-table.js';
import { isBroken } from './fast-delete.js';
import type { MachineProps } from './inventory.js';
import { isDeallocated, PARKED, WAKING } from './warm-buffer.js';

export interface MachineCounts {
  /** Managed, running and without error. */
  healthy: number;
  /** Listed with failed provisioning or a failed custom script extension (kept for an operator without fast delete). */
  broken: number;
  creating: number;
  /** Parked in the warm buffer by Drover (rows Parked, or Waking and not yet listed started): not ready. */
  warm: number;
  /** Stopped or deallocated by someone else (or evicted by Azure). */
  stopped: number;
  deleting: number;
  /** Listed VMs without an inventory row (adopted on the next pass, or the safety switch's business). */
  unmanaged: number;
  /** Inventory rows whose VM is not listed. */
  missing: number;
}

/** `rows`: the inventory's rows (their keys, and the status of parked ones: the history passes the rows a pass leaves). */
export function countMachines(instances: readonly CachedInstance[], rows: readonly (Pick<Row<MachineProps>, 'rowKey'> & { props?: Pick<MachineProps, 'providerStatus'> })[]): MachineCounts {
  const managed = new Set(rows.map((r) => r.rowKey));
  const statusOf = new Map(rows.map((r) => [r.rowKey, r.props?.providerStatus]));
  const listed = new Set(instances.map((i) => i.id));
  const counts: MachineCounts = { healthy: 0, broken: 0, creating: 0, warm: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 };
  for (const i of instances) {
    if (!managed.has(i.id) && i.state !== 'Deleting') counts.unmanaged++;
    const status = statusOf.get(i.id);
    if (i.state === 'Deleting') counts.deleting++;
    else if (status === PARKED || (status === WAKING && isDeallocated(i))) counts.warm++;
    else if (isBroken(i) || i.errorInfo !== null) counts.broken++;
    else if (i.state === 'Creating') counts.creating++;
    else if (/stopped|deallocat/.test(i.powerState)) counts.stopped++;
    else if (managed.has(i.id)) counts.healthy++;
  }
  counts.missing = rows.filter((r) => !listed.has(r.rowKey)).length;
  return counts;
}
