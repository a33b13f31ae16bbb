/**
 * The `history` table's row shape: a bounded time series per pool and target at the resolution
 * of change, read by the status page's timelines and by `drover replay --from-history`. Pure:
 * keys, fields and how stored rows read back; `history-writes.ts` decides what a pass writes,
 * `history-store.ts` does the I/O.
 *
 *   PartitionKey  `target/<name>` or `pool/<name>` (the decision log's object key)
 *   RowKey        a change: its instant in ISO with milliseconds, `2026-11-30T10:05:23.456Z`;
 *                 a minute's load: the UTC minute, `2026-11-30T10:05Z` (sorts after the minute's
 *                 changes, and both sort by time)
 *   change row    the object's whole state then, numbers only. Target: desired (-1 while no
 *                 sample is in the window), scale (the target's own), ready, active (1 True,
 *                 0 False, absent Unknown), activationMs (a wake from zero that completed then).
 *                 Pool: capacity (absent while unknown), inventory (rows), and the VMs by health
 *                 as status counts them (healthy, broken, creating, stopped, deleting,
 *                 unmanaged, missing and whatever counts are added later: read generically).
 *                 `events`: what happened then, as JSON `["deleted vmss-workers/4", …]`.
 *   minute row    a target's load in that minute: load (the average of its samples), loadMin,
 *                 loadMax, loadPoints (JSON `[[ms into the minute, value], …]`, the samples
 *                 themselves, at most MAX_MINUTE_POINTS).
 *
 * Rows of the earlier format (one row a minute holding the state at its end and the minute's
 * average load, pools with running/failed/unknown) are read as a state at the minute's start:
 * `running` as healthy and `failed` as broken, their load as one point.
 *
 * Kept 24 h and at most HISTORY_MAX_ROWS rows per object (the oldest go first).
 */
import { decodeSamples, type Sample } from '../load/samples.js';

export const HISTORY_RETENTION_MS = 24 * 3_600_000;
/** Rows one object keeps at most: a change every pass of a busy day, with its minutes' load rows. */
export const HISTORY_MAX_ROWS = 4_000;
/** What the status page shows. */
export const HISTORY_PAGE_WINDOW_MS = 3_600_000;
/** Samples a minute row keeps (one a second); the minute's min, max and average count them all. */
export const MAX_MINUTE_POINTS = 60;
/** Events one change row keeps, and the length of each. */
export const MAX_EVENTS = 20;
export const MAX_EVENT_CHARS = 200;

/** An object's state as numbers, by field name. */
export type HistoryFields = Record<string, number>;

export interface TargetHistoryFields extends HistoryFields {
  desired: number;
  scale: number;
  ready: number;
}

/** What one reconcile saw of its object, as a reconciler reports it with its decision. */
export interface HistoryObservation {
  kind: 'target' | 'pool';
  fields: HistoryFields;
  /** What this pass did or saw happen, worth a mark on the timeline. */
  events?: string[];
  /** Fields whose rise is an event too, with its words: `{ broken: 'VM(s) broken' }` marks "1 VM(s) broken". */
  risesMarked?: Record<string, string>;
  /** A target's load samples as the pass holds them (oldest first), for its minute's load row. */
  samples?: readonly Sample[];
  /** The load source is a gauge (push): its last value holds until the next. */
  gauge?: boolean;
}

export interface MinuteLoadStats {
  avg: number;
  min: number;
  max: number;
  /** The samples, at their own times. */
  points: Sample[];
}

/** One row as read back: a change (state and events) or a minute's load, or a row of the earlier format (both). */
export interface HistoryRow {
  object: string;
  key: string;
  /** Epoch ms: the change's instant, or the minute's start. */
  at: number;
  /** The whole state then; absent on a minute's load row. */
  fields?: HistoryFields;
  events: string[];
  load?: MinuteLoadStats;
}

const MINUTE_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/;
const CHANGE_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** `2026-11-30T10:05Z`: the UTC minute holding `ms`. */
export function minuteKey(ms: number): string {
  return `${minutePrefix(ms)}Z`;
}

/** `2026-11-30T10:05`: what every key of the minute holding `ms` starts with (a range bound for queries). */
export function minutePrefix(ms: number): string {
  return new Date(Math.floor(ms / 60_000) * 60_000).toISOString().slice(0, 16);
}

/** `2026-11-30T10:05:23.456Z`: a change's key. */
export function changeKey(ms: number): string {
  return new Date(ms).toISOString();
}

/** The start of a minute key, epoch ms; undefined for a key that is not one. */
export function minuteStart(key: string): number | undefined {
  if (!MINUTE_KEY.test(key)) return undefined;
  const ms = Date.parse(key);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The instant of a key of either kind; undefined for a key that is neither. */
export function keyTime(key: string): number | undefined {
  if (MINUTE_KEY.test(key)) return minuteStart(key);
  if (!CHANGE_KEY.test(key)) return undefined;
  const ms = Date.parse(key);
  return Number.isFinite(ms) ? ms : undefined;
}

const LOAD_PROPS = new Set(['load', 'loadMin', 'loadMax', 'loadPoints', 'events']);
/** The earlier format's pool fields, as today's counts name them. */
const LEGACY_NAMES: Record<string, string> = { running: 'healthy', failed: 'broken' };

/** A stored row back as a HistoryRow; undefined for a key of neither kind. */
export function parseHistoryRow(object: string, key: string, props: Record<string, unknown>): HistoryRow | undefined {
  const at = keyTime(key);
  if (at === undefined) return undefined;
  const pool = object.startsWith('pool/');
  const fields: HistoryFields = {};
  let state = false;
  for (const k in props) {
    const v = props[k];
    if (LOAD_PROPS.has(k) || typeof v !== 'number' || !Number.isFinite(v)) continue;
    fields[(pool && LEGACY_NAMES[k]) || k] = v;
    state = true;
  }
  const row: HistoryRow = { object, key, at, events: decodeEvents(props.events) };
  const isChange = !MINUTE_KEY.test(key);
  if (state || isChange) row.fields = fields;
  const load = minuteLoadOf(props, at);
  if (load) row.load = load;
  return row;
}

function minuteLoadOf(props: Record<string, unknown>, start: number): MinuteLoadStats | undefined {
  const avg = num(props.load);
  if (avg === undefined || avg < 0) return undefined;
  const stored = typeof props.loadPoints === 'string' ? decodeSamples(props.loadPoints) : undefined;
  // A row of the earlier format holds only the minute's average: one point at its start.
  const points = stored ? stored.map((p) => ({ at: start + p.at, value: p.value })) : [{ at: start, value: avg }];
  return { avg, min: num(props.loadMin) ?? avg, max: num(props.loadMax) ?? avg, points };
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function decodeEvents(v: unknown): string[] {
  if (typeof v !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(v);
    return Array.isArray(parsed) ? parsed.filter((e): e is string => typeof e === 'string').slice(0, MAX_EVENTS) : [];
  } catch {
    return [];
  }
}

/** Events as stored: at most MAX_EVENTS, each cut to MAX_EVENT_CHARS. */
export function encodeEvents(events: readonly string[]): string {
  return JSON.stringify(events.slice(0, MAX_EVENTS).map((e) => (e.length > MAX_EVENT_CHARS ? `${e.slice(0, MAX_EVENT_CHARS - 1)}…` : e)));
}
