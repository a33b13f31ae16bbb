/**
 * A scale set's cached instances stored packed: the whole list serialised as JSON (every field
 * of the record, whatever fields it has: nothing here names them) and cut into string
 * properties under Table Storage's limits, a few entities per scale set instead of one per VM.
 *
 * Limits (Table Storage): a string property holds at most 64 KiB (32,768 UTF-16 units), an
 * entity at most 1 MiB and 255 properties. A pack row carries up to CHUNKS_PER_ROW chunks of
 * CHUNK_UNITS units each: 15 × 30,000 × 2 bytes = 900,000 bytes, with room for the keys and the
 * system properties. 1,000 VMs take about 250,000 units: one row.
 */
import type { CachedInstance } from './instance.js';

export const PACK_ROW_PREFIX = '~pack-';
const CHUNK_UNITS = 30_000;
const CHUNKS_PER_ROW = 15;

/** One pack row's properties: `packId` ties the rows written together, `c0…cN` the chunks. */
export type PackProps = Record<string, string | number>;

/** The row key of pack `i` (sorted as written: `~pack-000`, `~pack-001`, …). */
export function packRowKey(i: number): string {
  return `${PACK_ROW_PREFIX}${String(i).padStart(3, '0')}`;
}

export function isPackRowKey(rowKey: string): boolean {
  return rowKey.startsWith(PACK_ROW_PREFIX);
}

/** The instances as pack rows' properties, in row order. */
export function packInstances(instances: readonly CachedInstance[], packId: number): PackProps[] {
  return packJson(JSON.stringify(instances), packId);
}

/** Any JSON text as pack rows' properties, in row order (the pool inventory's packs too). */
export function packJson(json: string, packId: number): PackProps[] {
  const rows: PackProps[] = [];
  let at = 0;
  do {
    const props: PackProps = { packId };
    for (let c = 0; c < CHUNKS_PER_ROW && at < json.length; c++, at += CHUNK_UNITS) props[`c${c}`] = json.slice(at, at + CHUNK_UNITS);
    rows.push(props);
  } while (at < json.length);
  return rows;
}

export class PackMismatchError extends Error {
  override name = 'PackMismatchError';
}

/**
 * The instances back from pack rows (in row key order). Throws PackMismatchError when the rows
 * are not one write's (a `packId` other than the meta row's, a row missing): a reader that
 * raced a writer reads again.
 */
export function unpackInstances(rows: readonly { rowKey: string; props: Record<string, unknown> }[], packId: number, packs: number): CachedInstance[] {
  return JSON.parse(unpackJson(rows, packId, packs)) as CachedInstance[];
}

/** The JSON text back from pack rows (in row key order); PackMismatchError as `unpackInstances`. */
export function unpackJson(rows: readonly { rowKey: string; props: Record<string, unknown> }[], packId: number, packs: number): string {
  if (rows.length !== packs) throw new PackMismatchError(`expected ${packs} pack row(s), found ${rows.length}`);
  let json = '';
  for (const row of [...rows].sort((a, b) => (a.rowKey < b.rowKey ? -1 : 1))) {
    if (row.props.packId !== packId) throw new PackMismatchError(`pack ${row.rowKey} is of another write`);
    for (let c = 0; c < CHUNKS_PER_ROW; c++) {
      const chunk = row.props[`c${c}`];
      if (typeof chunk !== 'string') break;
      json += chunk;
    }
  }
  return json;
}
