/**
 * The `history` table's row shape: a bounded time series per pool and target, read by the
 * status page's timelines and by `drover replay --from-history`. Pure: keys, fields and the
 * rule for when a row is written; `history-store.ts` does the I/O.
 *
 *   PartitionKey  `target/<name>` or `pool/<name>` (the decision log's object key)
 *   RowKey        the UTC minute in ISO, `2026-11-30T10:05Z` (sorts by time)
 *   target        load (the minute's average, absent when no sample fell in it and the source
 *                 is no gauge), desired (-1 while no sample is in the window), scale (the
 *                 target's own), ready, activationMs (a wake from zero that completed then)
 *   pool          capacity (absent while unknown), running, creating, deleting, unknown (VMs by
 *                 cached state), failed (VMs with error info), inventory (rows)
 *
 * One row a minute at most (the key is the minute; a later change in the same minute rewrites
 * it), written only when the fields changed since the object's last row, or when that row is
 * half an hour old, so the page's last hour always starts from a known value. Kept 24 h.
 */
import { windowAverage, type Sample } from '../load/samples.js';
import type { SampleWindow } from '../load/sample-window.js';
import type { InstanceStatus } from '../cache/instance.js';

export const HISTORY_RETENTION_MS = 24 * 3_600_000;
/** What the status page shows. */
export const HISTORY_PAGE_WINDOW_MS = 3_600_000;
/** An unchanged object still gets a row this often. */
export const HISTORY_HEARTBEAT_MS = 30 * 60_000;

export interface TargetHistoryFields {
  load?: number;
  desired: number;
  scale: number;
  ready: number;
  activationMs?: number;
}

export interface PoolHistoryFields {
  capacity?: number;
  running: number;
  creating: number;
  deleting: number;
  unknown: number;
  failed: number;
  inventory: number;
}

/** What one reconcile saw of its object, as a reconciler reports it with its decision. */
export type HistoryObservation = { kind: 'target'; fields: TargetHistoryFields } | { kind: 'pool'; fields: PoolHistoryFields };

export type HistoryFields = TargetHistoryFields | PoolHistoryFields;

/** One row as read back: the object, the minute (key and epoch ms of its start), the fields. */
export interface HistoryRow<F extends HistoryFields = HistoryFields> {
  object: string;
  minute: string;
  at: number;
  fields: F;
}

/** `2026-11-30T10:05Z`: the UTC minute holding `ms`. */
export function minuteKey(ms: number): string {
  return `${new Date(Math.floor(ms / 60_000) * 60_000).toISOString().slice(0, 16)}Z`;
}

/** The start of a minute key, epoch ms; undefined for a key that is not one. */
export function minuteStart(key: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/.test(key)) return undefined;
  const ms = Date.parse(key);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * The load of the minute holding `now`: the average of its samples so far; a gauge (push)
 * minute without one reads as the value that holds. Undefined when nothing is known.
 */
export function minuteLoad(samples: readonly Sample[] | SampleWindow, gauge: boolean, now: number): number | undefined {
  const start = Math.floor(now / 60_000) * 60_000;
  return windowAverage(samples, now, now - start + 1, gauge);
}

/** Pool fields from the cached instances, the inventory's size and the scale set's capacity. */
export function poolFields(instances: readonly InstanceStatus[], inventory: number, capacity: number | undefined): PoolHistoryFields {
  const count = (state: InstanceStatus['state']) => instances.filter((i) => i.state === state).length;
  return {
    ...(capacity === undefined ? {} : { capacity }),
    running: count('Running'),
    creating: count('Creating'),
    deleting: count('Deleting'),
    unknown: count(null),
    failed: instances.filter((i) => i.errorInfo !== null).length,
    inventory,
  };
}

/** The last row written for an object, as the writer remembers it. */
export interface LastHistoryRow {
  minute: string;
  fields: HistoryFields;
}

/**
 * The row to write for `fields` seen at `now`, or undefined when the last row already says it.
 * A wake's latency recorded earlier in the same minute is kept when the minute is rewritten.
 */
export function nextHistoryRow(last: LastHistoryRow | undefined, fields: HistoryFields, now: number): LastHistoryRow | undefined {
  const minute = minuteKey(now);
  const sameMinute = last?.minute === minute;
  const merged: HistoryFields =
    sameMinute && 'activationMs' in last.fields && !('activationMs' in fields && fields.activationMs !== undefined)
      ? { ...fields, activationMs: last.fields.activationMs }
      : fields;
  if (last && sameFields(last.fields, merged)) {
    const lastAt = minuteStart(last.minute) ?? 0;
    if (sameMinute || now - lastAt < HISTORY_HEARTBEAT_MS) return undefined;
  }
  return { minute, fields: merged };
}

function sameFields(a: HistoryFields, b: HistoryFields): boolean {
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)].filter((k) => ra[k] !== undefined || rb[k] !== undefined));
  for (const k of keys) if (ra[k] !== rb[k]) return false;
  return true;
}

const TARGET_KEYS = ['load', 'desired', 'scale', 'ready', 'activationMs'] as const;
const POOL_KEYS = ['capacity', 'running', 'creating', 'deleting', 'unknown', 'failed', 'inventory'] as const;

/** A stored row's properties back as fields of its object's kind; only numbers are taken. */
export function fieldsFromProps(object: string, props: Record<string, unknown>): HistoryFields {
  const keys = object.startsWith('pool/') ? POOL_KEYS : TARGET_KEYS;
  const out: Record<string, number> = {};
  for (const k of keys) {
    const v = props[k];
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  return out as unknown as HistoryFields;
}
