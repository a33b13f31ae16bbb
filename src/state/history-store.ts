/**
 * Reads and writes the `history` table (row shape in `history.ts`, what a pass writes in
 * `history-writes.ts`). A reconcile hands over what it saw once per object; what it writes goes
 * in one transaction (one partition: the object), and nothing is read to decide it. Rows older
 * than 24 h, and the oldest beyond HISTORY_MAX_ROWS, are deleted in transactions of up to 100,
 * by a pass that wrote, at most once an hour per object and process. An object's first prune in
 * a process comes at a random point 5 to 60 minutes after its first write there, so a host's
 * first pass lists no object's rows and the prunes of a fleet spread over the hour.
 */
import type { EntityTable, Row } from './entity-table.js';
import { escapeKey } from './keys.js';
import { HISTORY_MAX_ROWS, HISTORY_PAGE_WINDOW_MS, HISTORY_RETENTION_MS, minutePrefix, parseHistoryRow, type HistoryObservation, type HistoryRow } from './history.js';
import { historyWrites, type WriterMemory } from './history-writes.js';

const PRUNE_EVERY_MS = 3_600_000;
const FIRST_PRUNE_AFTER_MS = 300_000;
/** How far before the page's window to look first for the state it starts from. */
const LOOKBACK_MS = 3_600_000;

export class HistoryStore {
  private readonly memory = new Map<string, WriterMemory>();
  private readonly pruneAt = new Map<string, number>();

  constructor(
    private readonly table: EntityTable,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * Notes what `object` looks like at `now`; returns how many rows were written. `beforeWrite`
   * runs only when there is something to write (the pass's lease check).
   */
  async record(object: string, observed: HistoryObservation, now: number, beforeWrite?: () => Promise<void>): Promise<number> {
    const { rows, memory } = historyWrites(this.memory.get(object) ?? {}, observed, now);
    if (rows.length === 0) return 0;
    await beforeWrite?.();
    await this.table.writeChanged(object, rows, []);
    // Remembered once written: a failed write is tried again by the next pass that sees the same.
    this.memory.set(object, memory);
    const due = this.pruneAt.get(object);
    if (due === undefined) this.pruneAt.set(object, now + FIRST_PRUNE_AFTER_MS + Math.floor(this.random() * (PRUNE_EVERY_MS - FIRST_PRUNE_AFTER_MS)));
    else if (now >= due) {
      this.pruneAt.set(object, now + PRUNE_EVERY_MS);
      await this.prune(object, now);
    }
    return rows.length;
  }

  /**
   * The object's rows of the window ending at `now` (the last hour by default), oldest first,
   * led by the newest change row before the window: the state the window starts from. Every
   * query carries `signal` (the status page's deadline for this object).
   */
  async read(object: string, now: number, windowMs = HISTORY_PAGE_WINDOW_MS, signal?: AbortSignal): Promise<HistoryRow[]> {
    const from = now - windowMs;
    // The query starts at the window's first minute, whose rows before `from` may hold the start.
    const read = await this.query(object, minutePrefix(from), undefined, signal);
    const rows = read.filter((r) => r.at >= from);
    let before = read.filter((r) => r.fields !== undefined && r.at < from).at(-1);
    before ??= await this.lastState(object, from - LOOKBACK_MS, minutePrefix(from), signal);
    before ??= await this.lastState(object, now - HISTORY_RETENTION_MS, minutePrefix(from - LOOKBACK_MS), signal);
    return before ? [before, ...rows] : rows;
  }

  /** Deletes the object's rows older than the retention, and the oldest beyond the cap; returns how many. */
  async prune(object: string, now: number, maxRows = HISTORY_MAX_ROWS): Promise<number> {
    const keys: Row[] = [];
    const filter = `PartitionKey eq '${quote(escapeKey(object))}'`;
    for await (const e of this.table.client.listEntities({ queryOptions: { filter, select: ['RowKey'] } })) {
      keys.push({ partitionKey: object, rowKey: e.rowKey ?? '', etag: e.etag, props: {} });
    }
    const oldest = minutePrefix(now - HISTORY_RETENTION_MS);
    // Keys sort by time: the list comes oldest first.
    const beyondCap = Math.max(0, keys.length - maxRows);
    const old = keys.filter((k, i) => i < beyondCap || k.rowKey < oldest);
    if (old.length === 0) return 0;
    return (await this.table.writeChanged(object, [], old, { deleteMissing: true })).deleted;
  }

  /** The newest row holding a state among the keys from the minute of `from` up to `until`. */
  private async lastState(object: string, from: number, until: string, signal?: AbortSignal): Promise<HistoryRow | undefined> {
    return (await this.query(object, minutePrefix(from), until, signal)).filter((r) => r.fields !== undefined).at(-1);
  }

  /** Rows with keys from `from` on (and before `until`), oldest first. */
  private async query(object: string, from: string, until?: string, signal?: AbortSignal): Promise<HistoryRow[]> {
    const filter = `PartitionKey eq '${quote(escapeKey(object))}' and RowKey ge '${from}'${until ? ` and RowKey lt '${until}'` : ''}`;
    const rows: HistoryRow[] = [];
    for await (const e of this.table.client.listEntities<Record<string, unknown>>({ queryOptions: { filter }, ...(signal ? { abortSignal: signal } : {}) })) {
      const row = parseHistoryRow(object, e.rowKey ?? '', e);
      if (row) rows.push(row);
    }
    return rows.sort((a, b) => a.at - b.at || a.key.localeCompare(b.key));
  }
}

const quote = (s: string) => s.replace(/'/g, "''");
