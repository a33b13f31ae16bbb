/**
 * A scale set's cached instances stored packed: the whole list serialised as JSON (every field
 * of the record, whatever fields it has: nothing here names them) and cut into string
 * properties under Table Storage's limits, a few entities per scale set instead of one per VM.
 *
 * Limits (Table Storage): a string property holds at most 64 KiB (32,768 UTF-16 units), an
 * entity at most 1 MiB and 255 properties. A pack row carries up to CHUNKS_PER_ROW chunks of
 * CHUNK_UNITS units each: 15 × 30,000 × 2 bytes = 900,000 bytes, with room for the keys and the
 * system properties. 1,000 VMs take about 120,000 units: one row.
 *
 * The records' ids (an ARM resource id each, most of a record's length) are stored after their
 * common prefix, which the first row carries as `idPrefix` (`…/virtualMachineScaleSets/vmss/
 * virtualMachines/`); rows written without it hold whole ids and read as they are.
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

/** A list of records as packs store it: JSON with each record's id after `idPrefix`. */
export interface PackedList {
  json: string;
  idPrefix: string;
}

/**
 * The records as packs store them (pure): the common prefix of their `idKey` fields (up to its
 * last `/`), and the JSON of the records with that field cut to what follows it.
 */
export function packedList(records: readonly object[], idKey: string): PackedList {
  const ids = records.map((r) => (r as Record<string, unknown>)[idKey]).filter((v): v is string => typeof v === 'string');
  const idPrefix = ids.length === records.length ? commonPrefix(ids) : '';
  if (idPrefix === '') return { json: JSON.stringify(records), idPrefix };
  const cut = records.map((r) => ({ ...r, [idKey]: ((r as Record<string, string>)[idKey] ?? '').slice(idPrefix.length) }));
  return { json: JSON.stringify(cut), idPrefix };
}

/** The records back from their packed form (`idPrefix` put back on every id). */
export function recordsOf<T extends object>(list: PackedList, idKey: string): T[] {
  const records = JSON.parse(list.json) as Record<string, unknown>[];
  if (list.idPrefix !== '') for (const r of records) r[idKey] = list.idPrefix + String(r[idKey] ?? '');
  return records as T[];
}

/** The longest prefix every id starts with that ends with a `/`. */
function commonPrefix(ids: readonly string[]): string {
  if (ids.length === 0) return '';
  let prefix = ids[0]!.slice(0, ids[0]!.lastIndexOf('/') + 1);
  for (const id of ids) {
    while (!id.startsWith(prefix)) prefix = prefix.slice(0, prefix.lastIndexOf('/', prefix.length - 2) + 1);
  }
  return prefix;
}

/** The instances as pack rows' properties, in row order. */
export function packInstances(instances: readonly CachedInstance[], packId: number): PackProps[] {
  return rowsOfList(packedList(instances, 'id'), packId);
}

/** A packed list as pack rows' properties, in row order; the first row carries the id prefix. */
export function rowsOfList(list: PackedList, packId: number): PackProps[] {
  const rows = packJson(list.json, packId);
  if (list.idPrefix !== '') rows[0] = { ...rows[0], idPrefix: list.idPrefix };
  return rows;
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
  return recordsOf<CachedInstance>(unpackList(rows, packId, packs), 'id');
}

/** The packed list back from pack rows (in any order); PackMismatchError as `unpackJson`. */
export function unpackList(rows: readonly { rowKey: string; props: Record<string, unknown> }[], packId: number, packs: number): PackedList {
  const json = unpackJson(rows, packId, packs);
  const first = rows.find((r) => r.rowKey === packRowKey(0))?.props.idPrefix;
  return { json, idPrefix: typeof first === 'string' ? first : '' };
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
