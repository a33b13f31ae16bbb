/**
 * `drover replay --from-history`: the per-minute load averages of the `history` table as a
 * trace. Until the history store is on main this is the minimal reader of its row shape:
 *
 *   PartitionKey `target/<name>`, RowKey the UTC minute `2026-11-30T10:05Z`, field `load` =
 *   the minute's average (absent for a minute without one: skipped).
 *
 * Each row becomes a trace row at the start of its minute; targets are merged in time order.
 */
import { TableClient } from '@azure/data-tables';
import type { TokenCredential } from '@azure/core-auth';
import { unescapeKey } from '../state/keys.js';
import type { StorageLocation } from '../state/storage.js';
import type { TraceRow } from './trace.js';

const MINUTE_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/;

export interface HistoryEntity {
  partitionKey?: string;
  rowKey?: string;
  load?: unknown;
}

/** The trace in the history rows newer than `since`, for the given targets (all when empty). */
export function historyTrace(entities: Iterable<HistoryEntity>, since: number, targets: readonly string[]): TraceRow[] {
  const rows: TraceRow[] = [];
  for (const e of entities) {
    const object = unescapeKey(e.partitionKey ?? '');
    if (!object.startsWith('target/')) continue;
    const name = object.slice('target/'.length);
    if (targets.length > 0 && !targets.includes(name)) continue;
    const key = e.rowKey ?? '';
    const at = MINUTE_KEY.test(key) ? Date.parse(key) : NaN;
    if (!Number.isFinite(at) || at < since) continue;
    if (typeof e.load !== 'number' || !Number.isFinite(e.load) || e.load < 0) continue;
    rows.push({ at, target: name, load: e.load, line: 0 });
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
  const filter = `PartitionKey ge 'target%2F' and PartitionKey lt 'target%2G' and RowKey ge '${new Date(since).toISOString().slice(0, 16)}Z'`;
  for await (const e of client.listEntities<Record<string, unknown>>({ queryOptions: { filter } })) entities.push(e);
  return historyTrace(entities, since, targets);
}
