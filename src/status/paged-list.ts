/**
 * A partition read page by page for `drover status`, each page with a deadline of its own: a
 * large partition (a pool of 1,000 machines) takes as many pages as it needs, and only a page
 * that hangs fails, not a read that is merely long.
 */
import type { TableEntityResult } from '@azure/data-tables';
import { TimeoutError } from '../deadline.js';
import { escapeKey } from '../state/keys.js';
import { storageError } from '../state/errors.js';
import { toRow, type EntityTable, type Props, type Row } from '../state/entity-table.js';

/** Table Storage's own ceiling for one page of a query. */
export const STATUS_PAGE_SIZE = 1_000;
/** One page's deadline: the SDK's tries of it, with room for a loaded service. */
export const STATUS_PAGE_TIMEOUT_MS = 20_000;
/** A partition longer than this many pages is cut off (every input has a size limit): 100,000 rows. */
export const STATUS_MAX_PAGES = 100;

export interface PagedListOptions {
  pageSize?: number;
  pageTimeoutMs?: number;
  maxPages?: number;
}

/** Every row of `partitionKey`, read in pages; throws TimeoutError naming the page that ran out of time. */
export async function listPartitionPaged<P extends Props>(table: EntityTable, partitionKey: string, options: PagedListOptions = {}): Promise<Row<P>[]> {
  return listPaged<P>(table, `PartitionKey eq '${quoted(partitionKey)}'`, partitionKey, options);
}

/**
 * The row `rowKey` of every partition (one row per object, as the `targets` table keeps them), in
 * pages: a fleet's rows in a request per 1,000 instead of one each.
 */
export async function listRowPaged<P extends Props>(table: EntityTable, rowKey: string, options: PagedListOptions = {}): Promise<Row<P>[]> {
  return listPaged<P>(table, `RowKey eq '${quoted(rowKey)}'`, `row ${rowKey} of every partition`, options);
}

const quoted = (key: string) => escapeKey(key).replace(/'/g, "''");

async function listPaged<P extends Props>(table: EntityTable, filter: string, label: string, options: PagedListOptions): Promise<Row<P>[]> {
  const { pageSize = STATUS_PAGE_SIZE, pageTimeoutMs = STATUS_PAGE_TIMEOUT_MS, maxPages = STATUS_MAX_PAGES } = options;
  const rows: Row<P>[] = [];
  let continuationToken: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const what = `tables/${table.client.tableName} list ${label}, page ${page + 1}`;
    const deadline = AbortSignal.timeout(pageTimeoutMs);
    let entities: TableEntityResult<Record<string, unknown>>[];
    try {
      const pages = table.client.listEntities<Record<string, unknown>>({ queryOptions: { filter }, abortSignal: deadline }).byPage({ maxPageSize: pageSize, continuationToken });
      const next = await pages.next();
      entities = next.done ? [] : next.value;
      continuationToken = next.done ? undefined : next.value.continuationToken;
    } catch (err) {
      if (deadline.aborted) throw new TimeoutError(what, pageTimeoutMs);
      throw storageError(err, what);
    }
    for (const entity of entities) rows.push(toRow<P>(entity));
    if (!continuationToken) return rows;
  }
  throw new Error(`tables/${table.client.tableName} list ${label}: more than ${maxPages} pages of ${pageSize} rows`);
}
