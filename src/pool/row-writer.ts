/**
 * Writes a pool's inventory: any number of machine writes and its bookkeeping rows in one
 * `$batch` (state/batch.ts), whatever the count: the machines are packed (inventory-pack.ts),
 * each write checked against the version it was read with, and the pack written under its
 * first row's ETag with the partition's new generation (generation.ts), so a warm pass reads it
 * again. A batch is all or nothing: a pack another writer moved on is read again and the writes
 * checked anew; a bookkeeping row the service refuses fails alone and the rest goes again. Each
 * write reports whether it happened; a request that fails whole fails every write it carried.
 */
import { errorMessage } from '../log.js';
import { backoff, type EntityTable, type Props } from '../state/entity-table.js';
import { MAX_BATCH_OPS, submitBatch, type BatchOp } from '../state/batch.js';
import { failedOperationOf, StorageConflictError, StorageNotFoundError, StoragePreconditionFailedError } from '../state/errors.js';
import { newGeneration } from '../state/generation.js';
import { GENERATION_KEY } from './generation.js';
import { isBookkeepingKey, readInventory, type InventorySnapshot } from './inventory.js';
import { applyMachineWrites, HEAD_KEY, packMachines, type MachineWrite, type StoredMachines } from './inventory-pack.js';
import { packRowKey } from '../cache/pack.js';
import type { ConfigId } from '../config/sequence.js';
import { stampOf, stampProps } from '../job/config-stamp.js';

export type RowWrite =
  /** Must not exist yet. */
  | { op: 'insert'; key: string; props: Props }
  /** Only if the row still carries `etag`. */
  | { op: 'replace'; key: string; etag: string; props: Props }
  /** Only if the row still carries `etag` (in a batch too: a conditional delete). */
  | { op: 'delete'; key: string; etag: string };

/** `unexpected`: not a row-level refusal (exists, 412) but a failure of the store; the pass reports an error. */
export type RowResult = { ok: true } | { ok: false; reason: string; unexpected?: boolean };

/** The narrow port the executor writes inventory rows through (one pool's partition). */
export interface RowWriter {
  write(writes: readonly RowWrite[]): Promise<RowResult[]>;
}

function bookkeepingOp(w: RowWrite): BatchOp {
  switch (w.op) {
    case 'insert':
      return { kind: 'insert', rowKey: w.key, props: w.props };
    case 'replace':
      return { kind: 'replace', rowKey: w.key, etag: w.etag, props: w.props };
    case 'delete':
      return { kind: 'delete', rowKey: w.key, etag: w.etag };
  }
}

/** Why a write was refused, as the executor reports it; unexpected for anything but a row-level refusal. */
function refusal(w: RowWrite, err: unknown): RowResult {
  const rowLevel =
    w.op === 'insert' ? err instanceof StorageConflictError : err instanceof StoragePreconditionFailedError || err instanceof StorageNotFoundError;
  return rowLevel ? refused(w) : { ok: false, reason: errorMessage(err), unexpected: true };
}

function refused(w: RowWrite): RowResult {
  switch (w.op) {
    case 'insert':
      return { ok: false, reason: 'already in the inventory' };
    case 'replace':
      return { ok: false, reason: 'changed since it was read (412)' };
    case 'delete':
      return { ok: false, reason: 'changed or gone since it was read' };
  }
}

/** How often a pack another writer moved on is read again before the writes fail as contended. */
const PACK_ATTEMPTS = 12;

/**
 * The writer of one pool's partition. `from`: the inventory as the pass read it, so the first
 * write needs no read; later writes start from what the writer last wrote. `stamp`: the
 * configuration sequence every generation write carries (a pool pass's own host's); without it,
 * the stamp the generation row carries is carried on (job/config-stamp.ts).
 */
export function tableRowWriter(table: EntityTable, partition: string, from?: InventorySnapshot, stamp?: ConfigId): RowWriter {
  let stored = from?.stored;
  let configuration = stamp ?? stampOf(from?.generationRow?.props);
  const load = async () => {
    const read = await readInventory(table, partition);
    configuration = stamp ?? stampOf(read.generationRow?.props);
    return read.stored!;
  };
  return {
    async write(writes) {
      if (writes.length === 0) return [];
      const results: (RowResult | undefined)[] = writes.map(() => undefined);
      const machineAt = writes.flatMap((w, i) => (isBookkeepingKey(w.key) ? [] : [i]));
      let bookkeepingAt = writes.flatMap((w, i) => (isBookkeepingKey(w.key) ? [i] : []));
      try {
        stored ??= await load();
        for (let attempt = 1; ; attempt++) {
          const current: StoredMachines = stored;
          const applied = applyMachineWrites(current, machineAt.map((i) => writes[i] as MachineWrite));
          applied.refused.forEach((why, n) => (results[machineAt[n]!] = why ? refused(writes[machineAt[n]!]!) : { ok: true }));
          const machinesChanged = applied.refused.some((why) => why === undefined);
          if (!machinesChanged && bookkeepingAt.length === 0) return results as RowResult[];
          const plan = batchOf(current, machinesChanged ? applied.machines : undefined, bookkeepingAt.map((i) => writes[i]!), configuration);
          try {
            const answers = await submitBatch(table.client, partition, plan.ops);
            for (const i of bookkeepingAt) results[i] = { ok: true };
            stored = plan.after(partition, answers.map((a) => a.etag ?? ''));
            // Old-format rows left over are ignored once a pack exists: deleting them may fail, a later write tries again.
            if (plan.leftovers.length > 0) await table.writeChanged(partition, [], plan.leftovers, { deleteMissing: true }).catch(() => undefined);
            return results as RowResult[];
          } catch (err) {
            const failed = failedOperationOf(err);
            if (failed === undefined || attempt >= PACK_ATTEMPTS) throw err;
            const bookkeeping = plan.bookkeepingOf(failed.index);
            if (bookkeeping !== undefined) {
              results[bookkeepingAt[bookkeeping]!] = refusal(writes[bookkeepingAt[bookkeeping]!]!, err);
              bookkeepingAt = bookkeepingAt.filter((_, n) => n !== bookkeeping);
            } else {
              // The pack (or an old row) moved on: read it again and check every write anew.
              await backoff(attempt);
              stored = await load();
            }
          }
        }
      } catch (err) {
        // The store failed (not a row): what this call did not write is unknown to it; the next write reads again.
        stored = undefined;
        return results.map((r, i) => (r && !r.ok ? r : refusal(writes[i]!, err)));
      }
    },
  };
}

/**
 * The batch that writes `machines` (when they changed) and the bookkeeping writes: the pack
 * under its first row's ETag, the new generation, the bookkeeping rows, and as many deletes of
 * old-format rows as fit (the rest, `leftovers`, go after).
 */
function batchOf(stored: StoredMachines, machines: StoredMachines['machines'] | undefined, bookkeeping: readonly RowWrite[], configuration: ConfigId | undefined) {
  const ops: BatchOp[] = [];
  let packs: Props[] = [];
  if (machines) {
    packs = packMachines(machines);
    const { head } = stored;
    ops.push(head ? { kind: 'replace', rowKey: HEAD_KEY, etag: head.etag, props: packs[0]! } : { kind: 'insert', rowKey: HEAD_KEY, props: packs[0]! });
    packs.slice(1).forEach((props, i) => ops.push({ kind: 'upsert', rowKey: packRowKey(i + 1), props }));
    for (const r of stored.packRows) if (r.rowKey >= packRowKey(packs.length)) ops.push({ kind: 'delete', rowKey: r.rowKey, etag: r.etag });
  }
  ops.push({ kind: 'upsert', rowKey: GENERATION_KEY, props: { generation: newGeneration(), ...(configuration === undefined ? {} : stampProps(configuration)) } });
  const bookkeepingFrom = ops.length;
  ops.push(...bookkeeping.map(bookkeepingOp));
  const old = machines ? stored.oldRows : [];
  const room = Math.max(0, MAX_BATCH_OPS - ops.length);
  ops.push(...old.slice(0, room).map((r): BatchOp => ({ kind: 'delete', rowKey: r.rowKey, etag: r.etag })));
  const leftovers = old.slice(room);
  return {
    ops,
    leftovers,
    /** Which of the bookkeeping writes operation `index` is, if it is one. */
    bookkeepingOf: (index: number) => (index >= bookkeepingFrom && index < bookkeepingFrom + bookkeeping.length ? index - bookkeepingFrom : undefined),
    /** The machines as stored once the batch went through, from the ETags it answered. */
    after: (partition: string, etags: string[]): StoredMachines => {
      if (!machines) return stored;
      const packRows = packs.map((props, i) => ({ partitionKey: partition, rowKey: packRowKey(i), etag: etags[i] ?? '', props }));
      return { head: packRows[0], packRows, oldRows: [], machines };
    },
  };
}
