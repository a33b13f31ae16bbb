/**
 * Generations: how a warm pass knows nothing changed without reading what did not change.
 *
 * Each pool's inventory partition has a `~generation` row and each instance cache partition
 * its `~meta` row, both carrying a `generation`: a fresh random number written by every writer
 * of the partition before it writes its rows (the inventory's row writer, the cache's refresh,
 * its status marks and invalidation). Only equality is ever compared, so a random number does
 * what a counter would without reading the row first; written before the rows, a writer that
 * crashes halfway still leaves a new generation behind.
 *
 * A pass whose plan changes nothing records, on the `~generation` row (under its ETag, so a
 * writer in between wins), what it saw: both generations, the scale set's capacity and ETag,
 * and its decision. The next pass that finds the same generations, capacity and ETag, with the
 * cache still fresh, skips reading the partitions and repeats the decision.
 */
import type { EntityTable, Row } from '../state/entity-table.js';
import { newGeneration } from '../state/generation.js';
import type { Decision } from '../job/context.js';
import type { ConfigId } from '../config/sequence.js';
import { stampOf, stampProps } from '../job/config-stamp.js';

export const GENERATION_KEY = '~generation';

export type GenerationProps = {
  generation: number;
  warm?: string;
  /** The configuration sequence and hash of the host that last reconciled the pool (src/job/config-stamp.ts). */
  configSeq?: number;
  configHash?: string;
};

/** What the last plan that changed nothing saw. */
export interface WarmRecord {
  inventory: number;
  cache: number;
  capacity: number | undefined;
  etag: string | undefined;
  /** Epoch ms after which the same views may plan differently (a backoff ends); absent: never. */
  validUntil?: number;
  decision: Decision;
}

/** What a pass sees before reading the partitions. */
export interface WarmView {
  inventory: number | undefined;
  cache: number | undefined;
  capacity: number | undefined;
  etag: string | undefined;
  cacheFresh: boolean;
  now: number;
}

export function warmRecordOf(row: Row<GenerationProps> | undefined): WarmRecord | undefined {
  if (!row?.props.warm) return undefined;
  try {
    return JSON.parse(row.props.warm) as WarmRecord;
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}

/** Whether the last plan that changed nothing still stands (pure). */
export function stillWarm(record: WarmRecord | undefined, view: WarmView): record is WarmRecord {
  return (
    record !== undefined &&
    view.cacheFresh &&
    view.inventory !== undefined &&
    view.cache !== undefined &&
    record.inventory === view.inventory &&
    record.cache === view.cache &&
    record.capacity === view.capacity &&
    record.etag !== undefined &&
    record.etag === view.etag &&
    (record.validUntil === undefined || view.now < record.validUntil)
  );
}

export async function readGeneration(table: EntityTable, pool: string): Promise<Row<GenerationProps> | undefined> {
  return table.get<GenerationProps>(pool, GENERATION_KEY);
}

/** Marks the inventory partition written: called by every writer before it writes rows. */
export async function bumpGeneration(table: EntityTable, pool: string): Promise<void> {
  // Unconditional: it drops the warm record too, whatever it said (an empty one is none). A
  // merge, so that the configuration stamp stays, whoever writes.
  await table.upsert(pool, GENERATION_KEY, { generation: newGeneration(), warm: '' }, 'Merge');
}

/** Stamps the pool with a host's configuration (a merge: the generation and warm record stay). */
export async function stampGeneration(table: EntityTable, pool: string, configuration: ConfigId): Promise<void> {
  await table.upsert(pool, GENERATION_KEY, stampProps(configuration), 'Merge');
}

/**
 * Records what a plan that changed nothing saw, under the ETag the pass read the row with
 * (inserting it when there was none): false when a writer came in between, which is fine. The
 * row carries `configuration` (the pass's host's stamp), else the stamp it carried.
 */
export async function recordWarm(
  table: EntityTable,
  pool: string,
  row: Row<GenerationProps> | undefined,
  seen: Omit<WarmRecord, 'inventory'>,
  configuration?: ConfigId,
): Promise<boolean> {
  // No row yet (nothing written since generations came in): the record starts one.
  const generation = row?.props.generation ?? newGeneration();
  const props: GenerationProps = { generation, warm: JSON.stringify({ ...seen, inventory: generation } satisfies WarmRecord) };
  const stamp = configuration ?? stampOf(row?.props);
  if (stamp !== undefined) Object.assign(props, stampProps(stamp));
  const written = row ? await table.replaceIf(row, props) : await table.create(pool, GENERATION_KEY, props);
  return written !== undefined;
}
