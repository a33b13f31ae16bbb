/**
 * An in-memory stand-in for the part of a Table Storage TableClient that EntityTable's single-row
 * operations use (a point read sent through the client's pipeline, list by partition, create,
 * replace under an ETag, delete), with the status codes the service answers, so that code on
 * EntityTable can be tested with no I/O. Transactions are not modelled: a test of batched writes
 * belongs with Azurite.
 */
import type { TableClient } from '@azure/data-tables';
import { createHttpHeaders, type PipelineRequest, type PipelineResponse } from '@azure/core-rest-pipeline';
import { EntityTable } from '../../src/state/entity-table.js';

type Entity = { partitionKey: string; rowKey: string } & Record<string, unknown>;

class StatusError extends Error {
  constructor(readonly statusCode: number) {
    super(`status ${statusCode}`);
  }
}

export class MemoryTableClient {
  private readonly rows = new Map<string, { entity: Entity; etag: string }>();
  private version = 0;

  readonly url = 'https://memory.table.core.windows.net';
  /** The pipeline's part a point read uses: a GET of `…/{table}(PartitionKey='…',RowKey='…')`, answered as the service answers. */
  readonly pipeline = { sendRequest: (_http: unknown, request: PipelineRequest) => Promise.resolve(this.answer(request)) };

  constructor(readonly tableName: string) {}

  private answer(request: PipelineRequest): PipelineResponse {
    const keys = /\(PartitionKey='(.*)',RowKey='(.*)'\)$/.exec(request.url);
    const unquote = (k: string) => decodeURIComponent(k).replace(/''/g, "'");
    const row = keys && request.method === 'GET' ? this.rows.get(this.key(unquote(keys[1]!), unquote(keys[2]!))) : undefined;
    if (!row) return { request, status: 404, headers: createHttpHeaders(), bodyAsText: '{"odata.error":{"code":"ResourceNotFound","message":{"value":"Not found"}}}' };
    const { partitionKey, rowKey, ...props } = row.entity;
    const body = { PartitionKey: partitionKey, RowKey: rowKey, Timestamp: new Date().toISOString(), ...props };
    return { request, status: 200, headers: createHttpHeaders({ etag: row.etag, date: new Date().toUTCString() }), bodyAsText: JSON.stringify(body) };
  }

  private key(partitionKey: string, rowKey: string): string {
    return `${partitionKey}\u0000${rowKey}`;
  }

  private stored(entity: Entity): { entity: Entity; etag: string } {
    const row = { entity: { ...entity }, etag: `W/"${++this.version}"` };
    this.rows.set(this.key(entity.partitionKey, entity.rowKey), row);
    return row;
  }

  async *listEntities(options: { queryOptions?: { filter?: string } } = {}): AsyncIterable<Entity & { etag: string }> {
    const partition = /^PartitionKey eq '(.*)'$/.exec(options.queryOptions?.filter ?? '')?.[1]?.replace(/''/g, "'");
    for (const row of this.rows.values()) {
      if (partition === undefined || row.entity.partitionKey === partition) yield { ...row.entity, etag: row.etag };
    }
  }

  createEntity(entity: Entity): Promise<{ etag: string }> {
    if (this.rows.has(this.key(entity.partitionKey, entity.rowKey))) return Promise.reject(new StatusError(409));
    return Promise.resolve({ etag: this.stored(entity).etag });
  }

  updateEntity(entity: Entity, _mode: 'Replace', options: { etag?: string } = {}): Promise<{ etag: string }> {
    const row = this.rows.get(this.key(entity.partitionKey, entity.rowKey));
    if (!row) return Promise.reject(new StatusError(404));
    if (options.etag !== undefined && options.etag !== '*' && options.etag !== row.etag) return Promise.reject(new StatusError(412));
    return Promise.resolve({ etag: this.stored(entity).etag });
  }

  /** Replace (or insert) whatever is there; Merge keeps the properties not given. */
  upsertEntity(entity: Entity, mode: 'Replace' | 'Merge' = 'Merge'): Promise<{ etag: string }> {
    const row = this.rows.get(this.key(entity.partitionKey, entity.rowKey));
    return Promise.resolve({ etag: this.stored(mode === 'Merge' && row ? { ...row.entity, ...entity } : entity).etag });
  }

  deleteEntity(partitionKey: string, rowKey: string, options: { etag?: string } = {}): Promise<void> {
    const row = this.rows.get(this.key(partitionKey, rowKey));
    if (!row) return Promise.reject(new StatusError(404));
    if (options.etag !== undefined && options.etag !== '*' && options.etag !== row.etag) return Promise.reject(new StatusError(412));
    this.rows.delete(this.key(partitionKey, rowKey));
    return Promise.resolve();
  }
}

/** An EntityTable on a fresh in-memory table. */
export function memoryTable(name = 'memory'): EntityTable {
  return new EntityTable(new MemoryTableClient(name) as unknown as TableClient);
}
