/**
 * A thin layer over one Table Storage table: keys escaped on the way in and out, optimistic
 * concurrency on every read-modify-write, and batched writes of changed rows only.
 */
import type { TableClient, TableEntityResult } from '@azure/data-tables';
import { MAX_BATCH_OPS, submitBatch, type BatchOp } from './batch.js';
import { readEntity } from './table-requests.js';
import { escapeKey, unescapeKey } from './keys.js';
import {
  ContentionError,
  StorageConflictError,
  StorageNotFoundError,
  StoragePreconditionFailedError,
  failedOperationOf,
  storageError,
} from './errors.js';

export type Scalar = string | number | boolean;
export type Props = Record<string, Scalar | undefined>;

export interface Row<P extends Props = Props> {
  partitionKey: string;
  rowKey: string;
  etag: string;
  props: P;
}

/** A row as read, with the service's own times from that same response (see service-clock.ts). */
export interface TimedRow<P extends Props> {
  row: Row<P>;
  /** The row's Timestamp: when the service last wrote it (epoch ms). */
  writtenAt: number;
  /** The response's Date header: the service's time when it answered (epoch ms, whole seconds). */
  serviceNow: number;
}

/** What a read-modify-write callback returns: the new properties, or `undefined` to leave the row alone. */
export type Mutation<P extends Props> = (current: Row<P> | undefined) => P | undefined;

export interface UpdateResult<P extends Props> {
  row: Row<P> | undefined;
  changed: boolean;
  attempts: number;
}

export class EntityTable {
  constructor(
    readonly client: TableClient,
    private readonly options: { maxAttempts?: number } = {},
  ) {}

  /** The row, or undefined when it (or its table) is not there: one GET, parsed here (table-requests.ts). */
  async get<P extends Props>(partitionKey: string, rowKey: string): Promise<Row<P> | undefined> {
    return (await this.getTimed<P>(partitionKey, rowKey))?.row;
  }

  /** `get`, with the service's own times from the response: the row's Timestamp and the answer's Date. */
  async getTimed<P extends Props>(partitionKey: string, rowKey: string): Promise<TimedRow<P> | undefined> {
    const read = await readEntity(this.client, partitionKey, rowKey, this.operation('get', partitionKey, rowKey));
    if (!read) return undefined;
    return { row: rowOf<P>(partitionKey, rowKey, read.etag, read.entity), writtenAt: Date.parse(String(read.entity.Timestamp)), serviceNow: Date.parse(read.date ?? '') };
  }

  async list<P extends Props>(partitionKey?: string): Promise<Row<P>[]> {
    const rows: Row<P>[] = [];
    const filter = partitionKey === undefined ? undefined : `PartitionKey eq '${escapeKey(partitionKey).replace(/'/g, "''")}'`;
    try {
      for await (const entity of this.client.listEntities(filter ? { queryOptions: { filter } } : {})) {
        rows.push(toRow<P>(entity as TableEntityResult<Record<string, unknown>>));
      }
    } catch (err) {
      throw storageError(err, this.operation('list', partitionKey ?? '*'));
    }
    return rows;
  }

  /**
   * Writes the row whatever is there: an unconditional replace (properties not in `props` go),
   * or with `Merge` only the properties in `props` (the others stay).
   */
  async upsert(partitionKey: string, rowKey: string, props: Props, mode: 'Replace' | 'Merge' = 'Replace'): Promise<void> {
    try {
      await this.client.upsertEntity(toEntity(partitionKey, rowKey, props), mode);
    } catch (err) {
      throw storageError(err, this.operation('upsert', partitionKey, rowKey));
    }
  }

  /** Inserts a row that must not exist yet; false when it already does. */
  async create<P extends Props>(partitionKey: string, rowKey: string, props: P): Promise<Row<P> | undefined> {
    try {
      const res = await this.client.createEntity(toEntity(partitionKey, rowKey, props));
      return { partitionKey, rowKey, etag: res.etag ?? '', props };
    } catch (err) {
      const failure = storageError(err, this.operation('create', partitionKey, rowKey));
      if (failure instanceof StorageConflictError) return undefined;
      throw failure;
    }
  }

  /** Replaces a row only if it still carries `etag`; undefined when someone else wrote it first. */
  async replaceIf<P extends Props>(row: Row<P>, props: P): Promise<Row<P> | undefined> {
    try {
      const res = await this.client.updateEntity(toEntity(row.partitionKey, row.rowKey, props), 'Replace', { etag: row.etag });
      return { partitionKey: row.partitionKey, rowKey: row.rowKey, etag: res.etag ?? '', props };
    } catch (err) {
      const failure = storageError(err, this.operation('replace', row.partitionKey, row.rowKey));
      if (failure instanceof StoragePreconditionFailedError || failure instanceof StorageNotFoundError) return undefined;
      throw failure;
    }
  }

  /** Deletes a row if it still carries `etag` (or unconditionally without one); false if it was not there or changed. */
  async delete(partitionKey: string, rowKey: string, etag = '*'): Promise<boolean> {
    try {
      await this.client.deleteEntity(escapeKey(partitionKey), escapeKey(rowKey), { etag });
      return true;
    } catch (err) {
      const failure = storageError(err, this.operation('delete', partitionKey, rowKey));
      if (failure instanceof StorageNotFoundError || failure instanceof StoragePreconditionFailedError) return false;
      throw failure;
    }
  }

  /**
   * Read-modify-write under the row's ETag: a 412 or a racing insert means another writer won,
   * so re-read and apply the mutation again, a bounded number of times.
   */
  async update<P extends Props>(partitionKey: string, rowKey: string, mutate: Mutation<P>): Promise<UpdateResult<P>> {
    const maxAttempts = this.options.maxAttempts ?? 12;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const current = await this.get<P>(partitionKey, rowKey);
      const next = mutate(current);
      if (next === undefined || (current && sameProps(current.props, next))) {
        return { row: current, changed: false, attempts: attempt };
      }
      const written = current ? await this.replaceIf(current, next) : await this.create(partitionKey, rowKey, next);
      if (written) return { row: written, changed: true, attempts: attempt };
      await backoff(attempt);
    }
    throw new ContentionError(`${this.client.tableName}/${partitionKey}/${rowKey}`, maxAttempts);
  }

  /**
   * Makes one partition hold `desired`: rows whose properties differ from `existing` are
   * upserted, rows of `existing` absent from `desired` are deleted when `deleteMissing` is set,
   * each only if it still carries the ETag it was read with: a row rewritten since is someone
   * else's now and stays (its delete is dropped from the batch, which goes again without it).
   * Unchanged rows are not written. Batches carry at most 100 rows, one partition each.
   */
  async writeChanged<P extends Props>(
    partitionKey: string,
    desired: { rowKey: string; props: P }[],
    existing: Row<P>[],
    options: { deleteMissing?: boolean } = {},
  ): Promise<{ written: number; deleted: number }> {
    const before = new Map(existing.map((r) => [r.rowKey, r]));
    const ops: BatchOp[] = [];
    const wanted = new Set<string>();
    for (const d of desired) {
      wanted.add(d.rowKey);
      const old = before.get(d.rowKey);
      if (old && sameProps(old.props, d.props)) continue;
      ops.push({ kind: 'upsert', rowKey: d.rowKey, props: d.props });
    }
    const written = ops.length;
    if (options.deleteMissing) {
      for (const r of existing) if (!wanted.has(r.rowKey)) ops.push({ kind: 'delete', rowKey: r.rowKey, etag: r.etag });
    }
    let deleted = ops.length - written;
    for (let i = 0; i < ops.length; i += MAX_BATCH_OPS) deleted -= await this.sendDroppingStaleDeletes(partitionKey, ops.slice(i, i + MAX_BATCH_OPS));
    return { written, deleted };
  }

  /** Sends one batch; a delete refused because its row changed or went is left out. Returns how many were. */
  private async sendDroppingStaleDeletes(partitionKey: string, ops: BatchOp[]): Promise<number> {
    let dropped = 0;
    for (;;) {
      try {
        await submitBatch(this.client, partitionKey, ops);
        return dropped;
      } catch (err) {
        const failed = failedOperationOf(err);
        const stale = failed?.kind === 'delete' && (err instanceof StoragePreconditionFailedError || err instanceof StorageNotFoundError);
        if (!stale) throw err;
        ops = ops.filter((_, i) => i !== failed.index);
        dropped++;
        if (ops.length === 0) return dropped;
      }
    }
  }

  /** Names a failed call in its error: "tables/drovermachines get workers/vm-1". */
  private operation(verb: string, partitionKey: string, rowKey?: string): string {
    return `tables/${this.client.tableName} ${verb} ${partitionKey}${rowKey === undefined ? '' : `/${rowKey}`}`;
  }
}

export function toEntity(partitionKey: string, rowKey: string, props: Props) {
  const entity: Record<string, Scalar> = { partitionKey: escapeKey(partitionKey), rowKey: escapeKey(rowKey) };
  for (const k in props) {
    const v = props[k];
    if (v !== undefined) entity[k] = v;
  }
  return entity as { partitionKey: string; rowKey: string } & Record<string, Scalar>;
}

/**
 * The SDK's entity as a Row. Runs once per row of every read, so it walks the entity with
 * `for…in` (no entries array, no pair arrays) and skips system properties by name.
 */
export function toRow<P extends Props>(entity: TableEntityResult<Record<string, unknown>>): Row<P> {
  const props: Props = {};
  for (const k in entity) {
    if (isSystemKey(k)) continue;
    const v = entity[k];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') props[k] = v;
  }
  return {
    partitionKey: unescapeKey(entity.partitionKey ?? ''),
    rowKey: unescapeKey(entity.rowKey ?? ''),
    etag: entity.etag,
    props: props as P,
  };
}

/** A point read's entity (`odata=nometadata`: the service's own key names) as a Row. */
function rowOf<P extends Props>(partitionKey: string, rowKey: string, etag: string, entity: Record<string, unknown>): Row<P> {
  const props: Props = {};
  for (const k in entity) {
    if (k === 'PartitionKey' || k === 'RowKey' || k === 'Timestamp' || k.startsWith('odata.')) continue;
    const v = entity[k];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') props[k] = v;
  }
  return { partitionKey, rowKey, etag, props: props as P };
}

function isSystemKey(k: string): boolean {
  switch (k) {
    case 'partitionKey':
    case 'rowKey':
    case 'etag':
    case 'timestamp':
    case 'odata.metadata':
      return true;
    default:
      return false;
  }
}

/** Same properties, an absent one and one set to undefined alike. No key set is built: this runs per row per write. */
export function sameProps(a: Props, b: Props): boolean {
  for (const k in a) if (a[k] !== b[k]) return false;
  for (const k in b) if (!(k in a) && b[k] !== undefined) return false;
  return true;
}

/** Spreads retries of contending writers so they stop colliding in lockstep. */
export function backoff(attempt: number): Promise<void> {
  const ms = Math.min(200, 5 * 2 ** attempt) * Math.random();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
