/**
 * How a pool's machines are stored: packed, like the instance cache (cache/pack.ts), in a few
 * `~pack-NNN` rows of the pool's inventory partition instead of one row per machine. Each
 * machine is a record `{ k, v, p }`: its provider id, a version and its properties serialised
 * whole (nothing here names a field, so statuses and fields other modules add need no change);
 * provider ids are stored after their common prefix, as the cache's are (cache/pack.ts).
 *
 * A record's version is its ETag as the plan sees it (`pack:<v>`): a write of one machine is
 * still checked against the version it was read with, here instead of by the service, and the
 * pack as a whole is written under the first pack row's ETag. A writer that finds the pack moved
 * on reads it again and checks each write anew, so a machine another pass wrote in between
 * fails alone, as a row did (row-writer.ts).
 *
 * Migration: a partition of the old format (machine rows, no pack) is read as it is; the first
 * write packs every machine and deletes the old rows, ETag-guarded. Once a pack exists, rows of
 * the old format left over are ignored by readers and deleted by the next writer.
 */
import type { Props, Row } from '../state/entity-table.js';
import { newGeneration } from '../state/generation.js';
import { isPackRowKey, packedList, packRowKey, recordsOf, rowsOfList, unpackList } from '../cache/pack.js';
import type { MachineProps } from './machine-props.js';

/** One machine as stored in the pack. */
type PackedMachine = { k: string; v: number; p: MachineProps };

export const HEAD_KEY = packRowKey(0);

/** The machines of a partition as read: what a write of them starts from. */
export interface StoredMachines {
  /** The first pack row as read: the ETag every write of the machines is guarded by (undefined: no pack yet). */
  head: Row | undefined;
  /** Every pack row as read (those a smaller pack no longer needs are deleted). */
  packRows: Row[];
  /** Rows of the one-row-per-machine format: the machines while there is no pack, leftovers to delete after. */
  oldRows: Row[];
  /** Provider id → ETag as the plan sees it and properties, in provider id order. */
  machines: Map<string, { etag: string; props: MachineProps }>;
}

const TAG = 'pack:';
const versionTag = (v: number) => `${TAG}${v}`;
/** A record's version from its ETag; a machine of the old format gets its first one. */
const versionOf = (etag: string) => (etag.startsWith(TAG) ? Number(etag.slice(TAG.length)) : newGeneration());

/** The machines from a partition's rows (all of them: bookkeeping rows are left alone). */
export function storedMachines(all: readonly Row[], isBookkeeping: (key: string) => boolean): StoredMachines {
  const packRows = all.filter((r) => isPackRowKey(r.rowKey));
  const oldRows = all.filter((r) => !isBookkeeping(r.rowKey));
  const head = packRows.find((r) => r.rowKey === HEAD_KEY);
  const machines = new Map<string, { etag: string; props: MachineProps }>();
  if (head) {
    const records = recordsOf<PackedMachine>(unpackList(packRows, Number(head.props.packId), Number(head.props.packs)), 'k');
    for (const m of records) machines.set(m.k, { etag: versionTag(m.v), props: m.p });
  } else {
    for (const r of [...oldRows].sort(byKey)) machines.set(r.rowKey, { etag: r.etag, props: r.props as MachineProps });
  }
  return { head, packRows, oldRows, machines };
}

/** The machines as the plan reads them: rows of the partition, each with its ETag. */
export function machineRows(pool: string, stored: StoredMachines): Row<MachineProps>[] {
  return [...stored.machines].map(([rowKey, m]) => ({ partitionKey: pool, rowKey, etag: m.etag, props: m.props }));
}

/** A machine write as the packed store takes it (row-writer.ts's writes of machine rows). */
export type MachineWrite =
  | { op: 'insert'; key: string; props: MachineProps }
  | { op: 'replace'; key: string; etag: string; props: MachineProps }
  | { op: 'delete'; key: string; etag: string };

export type MachineRefusal = 'exists' | 'changed' | 'gone';

/**
 * Applies machine writes to the machines as stored (pure): the machines after them and, per
 * write, undefined when it applies or why it does not (the row-level refusals of a table).
 */
export function applyMachineWrites(stored: StoredMachines, writes: readonly MachineWrite[]): { machines: StoredMachines['machines']; refused: (MachineRefusal | undefined)[] } {
  const machines = new Map(stored.machines);
  // One random draw per call, the writes numbered from it: versions differ from every other write's all the same.
  const base = newGeneration();
  let written = 0;
  const nextTag = () => versionTag(base + ++written);
  const refused = writes.map((w): MachineRefusal | undefined => {
    const current = machines.get(w.key);
    if (w.op === 'insert') {
      if (current) return 'exists';
      machines.set(w.key, { etag: nextTag(), props: w.props });
      return undefined;
    }
    if (!current) return 'gone';
    if (current.etag !== w.etag) return 'changed';
    if (w.op === 'delete') machines.delete(w.key);
    else machines.set(w.key, { etag: nextTag(), props: w.props });
    return undefined;
  });
  return { machines: sortedByKey(machines), refused };
}

/** The pack rows' properties for `machines`, the first one carrying how many rows there are. */
export function packMachines(machines: StoredMachines['machines']): Props[] {
  const records: PackedMachine[] = [];
  for (const [k, m] of machines) records.push({ k, v: versionOf(m.etag), p: m.props });
  const rows: Props[] = rowsOfList(packedList(records, 'k'), newGeneration());
  rows[0] = { ...rows[0], packs: rows.length };
  return rows;
}

function sortedByKey<V>(map: Map<string, V>): Map<string, V> {
  return new Map([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function byKey(a: Row, b: Row): number {
  return a.rowKey < b.rowKey ? -1 : a.rowKey > b.rowKey ? 1 : 0;
}
