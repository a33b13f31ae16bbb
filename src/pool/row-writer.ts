/**
 * Writes many rows of one partition in ⌈N/100⌉ batches (state/batch.ts). A batch is all or
 * nothing and names the operation the service refused: that write fails alone with its reason,
 * and the rest of the batch is sent again without it. A failure that names no operation (a
 * request that failed whole) falls back to writing the batch's rows one by one. Each write
 * reports whether it happened. The partition's generation is bumped first (generation.ts), so
 * a warm pass reads it again.
 */
import { errorMessage } from '../log.js';
import type { EntityTable, Props } from '../state/entity-table.js';
import { MAX_BATCH_OPS, submitBatch, type BatchOp } from '../state/batch.js';
import { failedOperationOf, StorageConflictError, StorageNotFoundError, StoragePreconditionFailedError } from '../state/errors.js';
import { bumpGeneration } from './generation.js';

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

function batchOp(w: RowWrite): BatchOp {
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
  if (!rowLevel) return { ok: false, reason: errorMessage(err), unexpected: true };
  switch (w.op) {
    case 'insert':
      return { ok: false, reason: 'already in the inventory' };
    case 'replace':
      return { ok: false, reason: 'changed since it was read (412)' };
    case 'delete':
      return { ok: false, reason: 'changed or gone since it was read' };
  }
}

export function tableRowWriter(table: EntityTable, partition: string): RowWriter {
  const single = async (w: RowWrite): Promise<RowResult> => {
    try {
      await submitBatch(table.client, partition, [batchOp(w)]);
      return { ok: true };
    } catch (err) {
      return refusal(w, err);
    }
  };
  /** One batch; a refused operation fails alone and the others go again, until the rest is written. */
  const chunk = async (writes: readonly RowWrite[]): Promise<RowResult[]> => {
    const results: (RowResult | undefined)[] = writes.map(() => undefined);
    let pending = writes.map((_, i) => i);
    while (pending.length > 0) {
      try {
        await submitBatch(table.client, partition, pending.map((i) => batchOp(writes[i]!)));
        for (const i of pending) results[i] = { ok: true };
        break;
      } catch (err) {
        const failed = failedOperationOf(err);
        const at = failed === undefined ? undefined : pending[failed.index];
        if (at === undefined) {
          for (const i of pending) results[i] = await single(writes[i]!);
          break;
        }
        results[at] = refusal(writes[at]!, err);
        pending = pending.filter((i) => i !== at);
      }
    }
    return results as RowResult[];
  };
  return {
    async write(writes) {
      const results: RowResult[] = [];
      if (writes.length > 0) await bumpGeneration(table, partition);
      for (let i = 0; i < writes.length; i += MAX_BATCH_OPS) results.push(...(await chunk(writes.slice(i, i + MAX_BATCH_OPS))));
      return results;
    },
  };
}
