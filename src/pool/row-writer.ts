/**
 * Writes many rows of one partition in ⌈N/100⌉ transactions. A transaction is all or nothing,
 * so when one fails (a row already there, an ETag that moved on) its rows are written again one
 * by one: the bad row fails alone and the rest go on. Each write reports whether it happened.
 */
import type { TransactionAction } from '@azure/data-tables';
import { errorMessage } from '../log.js';
import { toEntity, type EntityTable, type Props } from '../state/entity-table.js';

export type RowWrite =
  /** Must not exist yet. */
  | { op: 'insert'; key: string; props: Props }
  /** Only if the row still carries `etag`. */
  | { op: 'replace'; key: string; etag: string; props: Props }
  /**
   * Only if the row still carries `etag` when written alone. Inside a transaction the SDK sends
   * deletes unconditionally; every writer of a pool's inventory holds the pool's lease, and the
   * rows deleted this way are of VMs that are gone for good, so nothing newer can be lost.
   */
  | { op: 'delete'; key: string; etag: string };

/** `unexpected`: not a row-level refusal (exists, 412) but a failure of the store; the pass reports an error. */
export type RowResult = { ok: true } | { ok: false; reason: string; unexpected?: boolean };

/** The narrow port the executor writes inventory rows through (one pool's partition). */
export interface RowWriter {
  write(writes: readonly RowWrite[]): Promise<RowResult[]>;
}

const MAX_BATCH = 100;

export function tableRowWriter(table: EntityTable, partition: string): RowWriter {
  const action = (w: RowWrite): TransactionAction => {
    switch (w.op) {
      case 'insert':
        return ['create', toEntity(partition, w.key, w.props)];
      case 'replace':
        return ['update', toEntity(partition, w.key, w.props), 'Replace', { etag: w.etag }];
      case 'delete':
        return ['delete', toEntity(partition, w.key, {})];
    }
  };
  const single = async (w: RowWrite): Promise<RowResult> => {
    try {
      switch (w.op) {
        case 'insert':
          return (await table.create(partition, w.key, w.props)) ? { ok: true } : { ok: false, reason: 'already in the inventory' };
        case 'replace':
          return (await table.replaceIf({ partitionKey: partition, rowKey: w.key, etag: w.etag, props: w.props }, w.props))
            ? { ok: true }
            : { ok: false, reason: 'changed since it was read (412)' };
        case 'delete':
          return (await table.delete(partition, w.key, w.etag)) ? { ok: true } : { ok: false, reason: 'changed or gone since it was read' };
      }
    } catch (err) {
      return { ok: false, reason: errorMessage(err), unexpected: true };
    }
  };
  return {
    async write(writes) {
      const results: RowResult[] = [];
      for (let i = 0; i < writes.length; i += MAX_BATCH) {
        const chunk = writes.slice(i, i + MAX_BATCH);
        try {
          await table.client.submitTransaction(chunk.map(action));
          results.push(...chunk.map((): RowResult => ({ ok: true })));
        } catch {
          for (const w of chunk) results.push(await single(w));
        }
      }
      return results;
    },
  };
}
