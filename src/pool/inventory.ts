/**
 * A pool's inventory in the `machines` table (the seed's BMDB): its managed machines, keyed by
 * provider id and stored packed in a few `~pack-NNN` rows (inventory-pack.ts), plus the pool's
 * own bookkeeping rows (safety switch, creation backoff, wanted count, generation) whose keys
 * start with `~`, which no provider id does. Read whole, in one query, once per pass.
 */
import type { EntityTable, Row } from '../state/entity-table.js';
import type { BackoffState } from './backoff.js';
import type { InventoryRow, ProviderId, ProviderStatus } from './machine.js';
import { GENERATION_KEY, type GenerationProps } from './generation.js';
import { WANTED_KEY, wantedOf, type WantedProps } from './wanted.js';
import { NOTES_KEY } from './notes.js';
import { machineRows, storedMachines, type StoredMachines } from './inventory-pack.js';
import { PackMismatchError } from '../cache/pack.js';
import type { MachineProps } from './machine-props.js';

export type { MachineProps } from './machine-props.js';

export interface SafetySwitchState {
  providerOnly: ProviderId[];
  inventoryOnly: ProviderId[];
  since: number;
}

export type JsonProps = { json: string };

export const SAFETY_KEY = '~safety';
export const BACKOFF_KEY = '~backoff';

/** Bookkeeping rows start with `~`; an operator never forgets one by accident. */
export const isBookkeepingKey = (key: string) => key.startsWith('~');

export interface InventorySnapshot {
  rows: Row<MachineProps>[];
  safety: SafetySwitchState | undefined;
  /** The safety row as read, for its ETag. */
  safetyRow: Row<JsonProps> | undefined;
  backoff: BackoffState | undefined;
  backoffRow: Row<JsonProps> | undefined;
  /** The count a target sizing this pool wants (wanted.ts); undefined: fill to maxCount. */
  wanted: number | undefined;
  /** The partition's generation row as read (generation.ts); undefined before anything bumped it. */
  generationRow: Row<GenerationProps> | undefined;
  /** What status shows of the pool beyond its counts (notes.ts), as read. */
  notesRow?: Row<JsonProps>;
  /** The machines as stored, for the row writer to start from without reading them again (row-writer.ts). */
  stored?: StoredMachines;
}

const READ_ATTEMPTS = 3;

/** The whole partition in one read: the machines and the pool's bookkeeping. */
export async function readInventory(table: EntityTable, pool: string): Promise<InventorySnapshot> {
  for (let attempt = 1; ; attempt++) {
    try {
      return inventoryFromRows(await table.list<MachineProps & JsonProps & GenerationProps & WantedProps>(pool), pool);
    } catch (err) {
      // Pack rows of two writes: the read raced a writer; read again.
      if (!(err instanceof PackMismatchError) || attempt >= READ_ATTEMPTS) throw err;
    }
  }
}

export function inventoryFromRows(all: readonly Row<Partial<MachineProps & JsonProps & GenerationProps & WantedProps>>[], pool = all[0]?.partitionKey ?? ''): InventorySnapshot {
  const stored = storedMachines(all as Row[], isBookkeepingKey);
  const bookkeeping = (key: string) => all.find((r) => r.rowKey === key) as Row<JsonProps> | undefined;
  const safetyRow = bookkeeping(SAFETY_KEY);
  const backoffRow = bookkeeping(BACKOFF_KEY);
  return {
    rows: machineRows(pool, stored),
    safety: safetyRow ? (JSON.parse(safetyRow.props.json) as SafetySwitchState) : undefined,
    safetyRow,
    backoff: backoffRow ? (JSON.parse(backoffRow.props.json) as BackoffState) : undefined,
    backoffRow,
    wanted: wantedOf(all.find((r) => r.rowKey === WANTED_KEY) as Row<Partial<WantedProps>> | undefined),
    generationRow: all.find((r) => r.rowKey === GENERATION_KEY) as Row<GenerationProps> | undefined,
    notesRow: bookkeeping(NOTES_KEY),
    stored,
  };
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
