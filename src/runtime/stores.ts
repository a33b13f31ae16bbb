/**
 * The tables and ports the reconciles, the probe and the status read and write, named by what
 * they hold and built once by the composition root, so that a part can be handed the few it
 * uses instead of the whole runtime.
 */
import type { Clock } from '../clock.js';
import type { TargetConfig } from '../config/schema.js';
import type { ProbeStores } from '../probe/async-probe.js';
import type { QueueSender } from '../queue/sender.js';
import type { EntityTable } from '../state/entity-table.js';
import type { TableName } from '../state/storage.js';
import { PushStore } from '../load/push-store.js';
import type { ServiceClock } from '../state/service-clock.js';

export interface Stores {
  /** One row per target: its scale, activity and errors (`targets`). */
  readonly targetRecords: EntityTable;
  /** Load samples per target (`samples`). */
  readonly samples: EntityTable;
  /** Each target's latest push, beside its samples (src/load/push-store.ts). */
  readonly pushes: PushStore;
  /** The pools' inventory rows (`machines`). */
  readonly inventory: EntityTable;
  /** The instance cache of each scale set (`instances`). */
  readonly instances: EntityTable;
  /** The pending re-enqueue markers, kept in the `leases` table (src/queue/sender.ts). */
  readonly pendingRows: EntityTable;
  /** What the async probe uses. */
  readonly probe: ProbeStores;
}

export function buildStores(table: (name: TableName) => EntityTable, queues: QueueSender, clock: Clock, targets: readonly TargetConfig[], service: ServiceClock): Stores {
  return {
    targetRecords: table('targets'),
    samples: table('samples'),
    pushes: new PushStore(table('samples'), service),
    inventory: table('machines'),
    instances: table('instances'),
    pendingRows: table('leases'),
    probe: { probes: table('probes'), targetRows: table('targets'), queues, clock, targets },
  };
}
