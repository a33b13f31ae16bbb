/**
 * A pool's inventory in the `machines` table (the seed's BMDB): one row per managed machine,
 * keyed by provider id, plus the pool's own bookkeeping rows (safety switch, creation backoff)
 * whose keys start with `~`, which no provider id does. Read whole, once per pass.
 */
import type { EntityTable, Row } from '../state/entity-table.js';
import type { BackoffState } from '../provisioner/backoff.js';
import type { InventoryRow, ProviderId, ProviderStatus } from '../provisioner/machine.js';
import { GENERATION_KEY, type GenerationProps } from './generation.js';
import { WANTED_KEY, wantedOf, type WantedProps } from './wanted.js';
import { NOTES_KEY } from './notes.js';

export type MachineProps = {
  providerStatus?: string;
  address?: string;
  name?: string;
  createdAt: number;
  updatedAt: number;
  /** When fast delete counted this VM's failure toward the creation backoff (once per VM). */
  brokenAt?: number;
};

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
}

/** The whole partition in one read: the machines and the pool's bookkeeping. */
export async function readInventory(table: EntityTable, pool: string): Promise<InventorySnapshot> {
  return inventoryFromRows(await table.list<MachineProps & JsonProps & GenerationProps & WantedProps>(pool));
}

export function inventoryFromRows(all: readonly Row<Partial<MachineProps & JsonProps & GenerationProps & WantedProps>>[]): InventorySnapshot {
  const bookkeeping = (key: string) => all.find((r) => r.rowKey === key) as Row<JsonProps> | undefined;
  const safetyRow = bookkeeping(SAFETY_KEY);
  const backoffRow = bookkeeping(BACKOFF_KEY);
  return {
    rows: all.filter((r) => !isBookkeepingKey(r.rowKey)) as Row<MachineProps>[],
    safety: safetyRow ? (JSON.parse(safetyRow.props.json) as SafetySwitchState) : undefined,
    safetyRow,
    backoff: backoffRow ? (JSON.parse(backoffRow.props.json) as BackoffState) : undefined,
    backoffRow,
    wanted: wantedOf(all.find((r) => r.rowKey === WANTED_KEY) as Row<Partial<WantedProps>> | undefined),
    generationRow: all.find((r) => r.rowKey === GENERATION_KEY) as Row<GenerationProps> | undefined,
    notesRow: bookkeeping(NOTES_KEY),
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
