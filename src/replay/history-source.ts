/**
 * `drover replay --from-history`: the load samples of the `history` table as a trace, at their
 * own times (row shape in `src/state/history.ts`): each minute row's samples, or, for a row of
 * the earlier per-minute format, its average at the start of its minute. Targets are merged in
 * time order.
 */
import { TableClient } from '@azure/data-tables';
import type { TokenCredential } from '@azure/core-auth';
import { minutePrefix, parseHistoryRow } from '../state/history.js';
import { unescapeKey } from '../state/keys.js';
import type { StorageLocation } from '../state/storage.js';
import type { TraceRow } from './trace.js';

export interface HistoryEntity {
  partitionKey?: string;
  rowKey?: string;
  [prop: string]: unknown;
}

/** The trace in the history rows newer than `since`, for the given targets (all when empty). */
export function historyTrace(entities: Iterable<HistoryEntity>, since: number, targets: readonly string[]): TraceRow[] {
  const rows: TraceRow[] = [];
  for (const e of entities) {
    const object = unescapeKey(e.partitionKey ?? '');
    if (!object.startsWith('target/')) continue;
    const name = object.slice('target/'.length);
    if (targets.length > 0 && !targets.includes(name)) continue;
    const points = parseHistoryRow(object, unescapeKey(e.rowKey ?? ''), e)?.load?.points ?? [];
    for (const p of points) if (p.at >= since && p.value >= 0) rows.push({ at: p.at, target: name, load: p.value, line: 0 });
  }
  rows.sort((a, b) => a.at - b.at);
  return rows.map((r, i) => ({ ...r, line: i + 1 }));
}

/** Reads the history rows of the last `windowMs` from `<prefix>history`. */
export async function readHistoryTrace(
  storage: { location: StorageLocation; prefix: string; credential: () => TokenCredential },
  targets: readonly string[],
  now: number,
  windowMs: number,
): Promise<TraceRow[]> {
  const name = `${storage.prefix}history`;
  const { location } = storage;
  const client =
    location.kind === 'connection'
      ? TableClient.fromConnectionString(location.connectionString, name, { allowInsecureConnection: /DefaultEndpointsProtocol=http;|UseDevelopmentStorage=true|=http:\/\//.test(location.connectionString) })
      : new TableClient(location.tableServiceUri, name, storage.credential());
  const since = now - windowMs;
  const entities: HistoryEntity[] = [];
  const filter = `PartitionKey ge 'target%2F' and PartitionKey lt 'target%2G' and RowKey ge '${minutePrefix(since)}'`;
  for await (const e of client.listEntities<Record<string, unknown>>({ queryOptions: { filter } })) entities.push(e);
  return historyTrace(entities, since, targets);
}
