/**
 * Reads and writes the `history` table (row shape in `history.ts`). A reconcile hands over what
 * it saw once per object; the store writes the minute's row only when it says something new,
 * comparing with the object's newest row: remembered per process within a minute, read again
 * (from that row on) in the next, so that rows other instances wrote count. Rows older than 24 h are deleted per object, in transactions of up to 100, at most
 * once an hour per object and process.
 */
import type { EntityTable, Row } from './entity-table.js';
import { escapeKey } from './keys.js';
import {
  HISTORY_PAGE_WINDOW_MS,
  HISTORY_RETENTION_MS,
  fieldsFromProps,
  minuteKey,
  minuteStart,
  nextHistoryRow,
  type HistoryFields,
  type HistoryRow,
  type LastHistoryRow,
} from './history.js';

const PRUNE_EVERY_MS = 3_600_000;

export class HistoryStore {
  private readonly last = new Map<string, LastHistoryRow>();
  private readonly prunedAt = new Map<string, number>();
  /** The minute in which each object's newest row was last looked up. */
  private readonly checked = new Map<string, string>();

  constructor(private readonly table: EntityTable) {}

  /** Notes what `object` looks like at `now`; returns whether a row was written. */
  async record(object: string, fields: HistoryFields, now: number): Promise<boolean> {
    const known = this.last.get(object);
    const minute = minuteKey(now);
    // Within a minute this process trusts what it last wrote or read; in a new one it looks for
    // rows other instances wrote since (a short read: the rows from its own last one on).
    let last = known;
    if (this.checked.get(object) !== minute) {
      last = (await this.latest(object, known ? minuteStart(known.minute)! : now - HISTORY_PAGE_WINDOW_MS)) ?? known;
      this.checked.set(object, minute);
    }
    const next = nextHistoryRow(last, fields, now);
    if (next) {
      await this.table.upsert(object, next.minute, next.fields as unknown as Record<string, number>);
    }
    const remembered = next ?? last;
    if (remembered) this.last.set(object, remembered);
    if (now - (this.prunedAt.get(object) ?? 0) >= PRUNE_EVERY_MS) {
      this.prunedAt.set(object, now);
      await this.prune(object, now);
    }
    return next !== undefined;
  }

  /** The object's rows of the window ending at `now` (the last hour by default), oldest first. */
  async read(object: string, now: number, windowMs = HISTORY_PAGE_WINDOW_MS): Promise<HistoryRow[]> {
    const filter = `PartitionKey eq '${quote(escapeKey(object))}' and RowKey ge '${minuteKey(now - windowMs)}'`;
    const rows: HistoryRow[] = [];
    for await (const e of this.table.client.listEntities<Record<string, unknown>>({ queryOptions: { filter } })) {
      const at = minuteStart(e.rowKey ?? '');
      if (at === undefined) continue;
      rows.push({ object, minute: e.rowKey!, at, fields: fieldsFromProps(object, e) });
    }
    return rows.sort((a, b) => a.at - b.at);
  }

  /** Deletes the object's rows older than the retention; returns how many. */
  async prune(object: string, now: number): Promise<number> {
    const filter = `PartitionKey eq '${quote(escapeKey(object))}' and RowKey lt '${minuteKey(now - HISTORY_RETENTION_MS)}'`;
    const old: Row[] = [];
    for await (const e of this.table.client.listEntities({ queryOptions: { filter, select: ['PartitionKey', 'RowKey'] } })) {
      old.push({ partitionKey: object, rowKey: e.rowKey ?? '', etag: e.etag, props: {} });
    }
    if (old.length === 0) return 0;
    return (await this.table.writeChanged(object, [], old, { deleteMissing: true })).deleted;
  }

  /** The object's newest row from the minute holding `since` on. */
  private async latest(object: string, since: number): Promise<LastHistoryRow | undefined> {
    const filter = `PartitionKey eq '${quote(escapeKey(object))}' and RowKey ge '${minuteKey(since)}'`;
    let newest: HistoryRow | undefined;
    for await (const e of this.table.client.listEntities<Record<string, unknown>>({ queryOptions: { filter } })) {
      const at = minuteStart(e.rowKey ?? '');
      if (at !== undefined && (!newest || at > newest.at)) newest = { object, minute: e.rowKey!, at, fields: fieldsFromProps(object, e) };
    }
    return newest && { minute: newest.minute, fields: newest.fields };
  }
}

const quote = (s: string) => s.replace(/'/g, "''");
