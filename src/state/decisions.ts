/**
 * A bounded log of what each pass decided and why, read by `drover status`. Rows are
 * partitioned by UTC day with an inverted-time row key so the newest come first; days older
 * than the retention are pruned, and a decision identical to the object's previous one is
 * not written again within the repeat interval, so a steady fleet does not fill the table.
 * Each day's partition also holds each object's last decision that day (`~last/<object>`, after
 * every line), written with the line in one batch: a new day starts each object over with one line.
 */
import { randomBytes } from 'node:crypto';
import type { EntityTable, Props, Row } from './entity-table.js';
import { redact } from '../redact.js';
import { unescapeKey } from './keys.js';
import { capText } from '../text/cap.js';

export interface DecisionRecord {
  at: number;
  object: string;
  decision: string;
  reason: string;
  error?: string;
  /** The rule that bound a target's decision (`ScaleUpLimit`, `Paused`, …). */
  boundBy?: string;
  /** What the adaptive policy's forecast made of a target's decision: stored as JSON in the line's `forecast`. */
  forecast?: ForecastLine;
}

/**
 * What the adaptive policy's forecast made of a target's decision, when its mode is not off
 * (src/scaler/recommend/forecast-stage.ts): its floor in replicas, and whether that is above what
 * the policy's rule decided (`floor` raised to it within the rate limits; `observe` would have).
 * The one shape the stage, the decision, the log, status and replay carry.
 */
export interface ForecastLine {
  mode: 'observe' | 'floor';
  floor: number;
  wouldRaise: boolean;
}

type DecisionProps = { at: number; object: string; decision: string; reason: string; error?: string; boundBy?: string; forecast?: string };
type LastProps = { at: number; fingerprint: string };

/** Row keys of an object's last decision of the day: after every line's (digits) in the partition. */
const LAST_PREFIX = '~last/';
const MAX_TIME = 9_999_999_999_999;

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function invertedKey(ms: number): string {
  return `${String(MAX_TIME - ms).padStart(13, '0')}-${randomBytes(3).toString('hex')}`;
}

/** How many objects' last decisions a process remembers (past that it forgets them all and reads again). */
const MAX_REMEMBERED = 10_000;

export class DecisionLog {
  /**
   * The last decision this process wrote per object: a pass that repeats it within the repeat
   * interval is not written, and need not read the `last` row to know (a warm pass makes no
   * read of the log). Another host's decision in between is not seen: the repeat then goes
   * unwritten until the interval passes, as it would have had that host not written.
   */
  private readonly written = new Map<string, LastProps>();

  constructor(
    private readonly table: EntityTable,
    private readonly options: { retentionDays?: number; repeatAfterMs?: number } = {},
  ) {}

  /**
   * Records a decision unless it repeats the object's last one; returns whether it was written.
   * Reason and error are redacted here, the one way into the table the status page reads.
   */
  async record(decision: DecisionRecord): Promise<boolean> {
    const d = { ...decision, reason: capText(redact(decision.reason)), ...(decision.error !== undefined ? { error: capText(redact(decision.error)) } : {}) };
    const fingerprint = `${d.decision}\u0000${d.reason}\u0000${d.error ?? ''}`;
    const repeatAfter = this.options.repeatAfterMs ?? 3_600_000;
    const day = dayOf(d.at);
    const remembered = this.written.get(d.object);
    const last = remembered && dayOf(remembered.at) === day ? remembered : (await this.table.get<LastProps>(day, `${LAST_PREFIX}${d.object}`))?.props;
    if (last && last.fingerprint === fingerprint && d.at - last.at < repeatAfter) return false;
    const line = { at: d.at, object: d.object, decision: d.decision, reason: d.reason, error: d.error, boundBy: d.boundBy, forecast: d.forecast && JSON.stringify(d.forecast) };
    const rows: { rowKey: string; props: Props }[] = [
      { rowKey: invertedKey(d.at), props: line },
      { rowKey: `${LAST_PREFIX}${d.object}`, props: { at: d.at, fingerprint } },
    ];
    await this.table.writeChanged(day, rows, []);
    if (this.written.size >= MAX_REMEMBERED) this.written.clear();
    this.written.set(d.object, { at: d.at, fingerprint });
    return true;
  }

  /** The newest decisions first, at most `limit`, looking back over the retained days. */
  async recent(now: number, limit = 50): Promise<DecisionRecord[]> {
    const out: DecisionRecord[] = [];
    for (let day = 0; day < this.retentionDays() && out.length < limit; day++) {
      const pk = dayOf(now - day * 86_400_000);
      const iter = this.table.client.listEntities<DecisionProps>({ queryOptions: { filter: `PartitionKey eq '${pk}' and RowKey lt '~'` } });
      for await (const e of iter) {
        out.push(stripUndefined({ at: e.at, object: e.object, decision: e.decision, reason: e.reason, error: e.error, boundBy: e.boundBy, forecast: forecastOf(e.forecast) }) as DecisionRecord);
        if (out.length >= limit) break;
      }
    }
    return out;
  }

  /** Deletes whole days older than the retention (the `last` partition of earlier builds sorts after every date). */
  async prune(now: number): Promise<number> {
    const cutoff = dayOf(now - this.retentionDays() * 86_400_000);
    const old = new Map<string, Row[]>();
    const iter = this.table.client.listEntities({ queryOptions: { filter: `PartitionKey lt '${cutoff}'`, select: ['PartitionKey', 'RowKey'] } });
    for await (const e of iter) {
      const day = e.partitionKey ?? '';
      // The batch escapes the key again: the listing's is unescaped first (`~last/pool%2Fa`).
      const rows = old.get(day) ?? [];
      rows.push({ partitionKey: day, rowKey: unescapeKey(e.rowKey ?? ''), etag: e.etag, props: {} });
      old.set(day, rows);
    }
    let deleted = 0;
    for (const [day, rows] of old) deleted += (await this.table.writeChanged(day, [], rows, { deleteMissing: true })).deleted;
    return deleted;
  }

  private retentionDays(): number {
    return this.options.retentionDays ?? 7;
  }
}

/** A line's `forecast` read back; a text that does not parse as one reads as none. */
function forecastOf(text: string | undefined): ForecastLine | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as Partial<ForecastLine> | null;
    return (v?.mode === 'observe' || v?.mode === 'floor') && typeof v.floor === 'number' && typeof v.wouldRaise === 'boolean' ? { mode: v.mode, floor: v.floor, wouldRaise: v.wouldRaise } : undefined;
  } catch {
    return undefined;
  }
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
