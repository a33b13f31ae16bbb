/**
 * A pool's inventory in the `machines` table (the seed's BMDB): one row per managed machine,
 * keyed by provider id, plus the pool's own bookkeeping rows (safety switch, creation backoff)
 * whose keys start with `~`, which no provider id does.
 */
import type { Clock } from '../clock.js';
import type { EntityTable, Row } from '../state/entity-table.js';
import type { BackoffState } from './backoff.js';
import type { InventoryRow, ProviderId, ProviderStatus } from './machine.js';
import type { Inventory } from './ports.js';

export type MachineProps = {
  providerStatus?: string;
  address?: string;
  name?: string;
  createdAt: number;
  updatedAt: number;
};

export interface SafetySwitchState {
  providerOnly: ProviderId[];
  inventoryOnly: ProviderId[];
  since: number;
}

export interface InventorySnapshot {
  rows: Row<MachineProps>[];
  safety: SafetySwitchState | undefined;
  backoff: BackoffState | undefined;
}

const SAFETY = '~safety';
const BACKOFF = '~backoff';
type JsonProps = { json: string };

export class InventoryStore implements Inventory {
  constructor(
    private readonly table: EntityTable,
    readonly pool: string,
    private readonly clock: Clock,
  ) {}

  /** The whole partition in one read: the machines and the pool's bookkeeping. */
  async snapshot(): Promise<InventorySnapshot> {
    const all = await this.table.list<MachineProps & JsonProps>(this.pool);
    const json = <T>(key: string) => {
      const row = all.find((r) => r.rowKey === key);
      return row ? (JSON.parse(row.props.json) as T) : undefined;
    };
    return {
      rows: all.filter((r) => !r.rowKey.startsWith('~')) as Row<MachineProps>[],
      safety: json<SafetySwitchState>(SAFETY),
      backoff: json<BackoffState>(BACKOFF),
    };
  }

  async rows(): Promise<Row<MachineProps>[]> {
    return (await this.snapshot()).rows;
  }

  async list(): Promise<InventoryRow[]> {
    return (await this.rows()).map(toInventoryRow);
  }

  /** Writes a row for a machine that is now managed; false when it already had one. */
  async adopt(id: ProviderId, status: ProviderStatus, name?: string): Promise<boolean> {
    const now = this.clock.now();
    return (await this.table.create<MachineProps>(this.pool, id, { providerStatus: status, name, createdAt: now, updatedAt: now })) !== undefined;
  }

  /** Marks rows failed for good (creating them when missing), so the safety switch excuses them. */
  async markFailed(ids: readonly ProviderId[], names: ReadonlyMap<ProviderId, string> = new Map()): Promise<void> {
    const now = this.clock.now();
    for (const id of ids) {
      await this.table.update<MachineProps>(this.pool, id, (row) => ({
        ...(row?.props ?? { createdAt: now, name: names.get(id) }),
        providerStatus: 'ProvisioningFailedPermanent',
        updatedAt: now,
      }));
    }
  }

  /** Brings each row's provider status up to date; only rows whose status changed are written. */
  async syncStatuses(rows: Row<MachineProps>[], statusOf: (id: ProviderId) => ProviderStatus | undefined): Promise<number> {
    const now = this.clock.now();
    const desired = rows.map((r) => {
      const status = r.props.providerStatus === 'ProvisioningFailedPermanent' ? undefined : statusOf(r.rowKey);
      return { rowKey: r.rowKey, props: status && status !== r.props.providerStatus ? { ...r.props, providerStatus: status, updatedAt: now } : r.props };
    });
    return (await this.table.writeChanged(this.pool, desired, rows)).written;
  }

  async remove(id: ProviderId): Promise<boolean> {
    return this.table.delete(this.pool, id);
  }

  /**
   * Records the views' disagreement (keeping when it started) or clears it once they agree;
   * `previous` is what the caller read, so an unchanged state costs no write.
   */
  async setSafetySwitch(state: Omit<SafetySwitchState, 'since'> | undefined, previous: SafetySwitchState | undefined): Promise<void> {
    if (!state) {
      if (previous) await this.table.delete(this.pool, SAFETY);
      return;
    }
    const next = { ...state, since: previous?.since ?? this.clock.now() };
    if (previous && JSON.stringify(previous) === JSON.stringify(next)) return;
    await this.table.update<JsonProps>(this.pool, SAFETY, (row) => {
      const since = row ? (JSON.parse(row.props.json) as SafetySwitchState).since : next.since;
      return { json: JSON.stringify({ ...next, since }) };
    });
  }

  async safetySwitch(): Promise<SafetySwitchState | undefined> {
    return (await this.snapshot()).safety;
  }

  async backoff(): Promise<BackoffState | undefined> {
    return (await this.snapshot()).backoff;
  }

  async setBackoff(state: BackoffState): Promise<void> {
    await this.table.update<JsonProps>(this.pool, BACKOFF, () => ({ json: JSON.stringify(state) }));
  }

}

export function toInventoryRow(row: Row<MachineProps>): InventoryRow {
  return {
    providerId: row.rowKey,
    providerStatus: (row.props.providerStatus as ProviderStatus | undefined) ?? null,
    address: row.props.address ?? null,
    createdAt: row.props.createdAt,
    updatedAt: row.props.updatedAt,
  };
}
