/**
 * What one pass writes to an object's history (row shape in `history.ts`), from what the pass
 * saw and what the writer remembers of its own last rows. Pure: memory, observation and `now`
 * in; rows and the new memory out. Nothing is read back from the table: a pass in which nothing
 * changed writes nothing and reads nothing.
 *
 * A change row is written when the state differs from the last one this writer wrote, when the
 * pass has events, or when the writer's memory is HISTORY_TRUST_MS old: another instance may
 * have written a change since (Functions scale out), and a repeated row is harmless where a
 * missing one would leave the timeline wrong. A target's minute row is written when the pass
 * brought samples the minute's row does not hold yet.
 */
import type { Props } from './entity-table.js';
import type { Sample } from '../load/samples.js';
import { changeKey, encodeEvents, MAX_MINUTE_POINTS, minuteKey, type HistoryFields, type HistoryObservation } from './history.js';

/** How long a writer trusts its memory of an object's last change row. */
export const HISTORY_TRUST_MS = 5 * 60_000;

export interface WriterMemory {
  /** The last change row this writer wrote: its state, when, its key and events. */
  last?: { fields: HistoryFields; at: number; key: string; events: string[] };
  /** The minute whose load row this writer last wrote, its samples and a gauge's value held into it. */
  minute?: { key: string; points: Sample[]; held?: number };
}

export interface HistoryWrite {
  rowKey: string;
  props: Props;
}

export function historyWrites(memory: WriterMemory, obs: HistoryObservation, now: number): { rows: HistoryWrite[]; memory: WriterMemory } {
  const rows: HistoryWrite[] = [];
  const next: WriterMemory = { ...memory };
  const change = changeRow(memory.last, obs, now);
  if (change) {
    rows.push(change.row);
    next.last = change.last;
  }
  if (obs.samples) {
    const minute = minuteRow(memory.minute, obs.samples, obs.gauge === true, now);
    if (minute) {
      rows.push(minute.row);
      next.minute = minute.minute;
    }
  }
  return { rows, memory: next };
}

function changeRow(last: WriterMemory['last'], obs: HistoryObservation, now: number) {
  const events = [...(obs.events ?? []), ...rises(last?.fields, obs)];
  const changed = last === undefined || !sameFields(last.fields, obs.fields);
  if (!changed && events.length === 0 && now - last.at < HISTORY_TRUST_MS) return undefined;
  const key = changeKey(now);
  // Two passes within one millisecond share a key: the second row keeps the first one's events.
  const kept = last?.key === key ? [...last.events, ...events] : events;
  const props: Props = { ...obs.fields, ...(kept.length ? { events: encodeEvents(kept) } : {}) };
  return { row: { rowKey: key, props }, last: { fields: { ...obs.fields }, at: now, key, events: kept } };
}

function minuteRow(known: WriterMemory['minute'], samples: readonly Sample[], gauge: boolean, now: number) {
  const start = Math.floor(now / 60_000) * 60_000;
  const key = minuteKey(now);
  const same = known?.key === key ? known : undefined;
  const points = merge(same?.points ?? [], samples.filter((s) => s.at >= start && s.at <= now));
  if (points.length === 0 || points.length === same?.points.length) return undefined;
  // A gauge holds its last value into the minute: that value is part of the minute's range.
  const before = gauge ? samples.filter((s) => s.at < start).at(-1)?.value : undefined;
  const held = same ? same.held : before;
  const values = [...(held === undefined ? [] : [held]), ...points.map((p) => p.value)];
  const props: Props = {
    load: values.reduce((a, b) => a + b, 0) / values.length,
    loadMin: Math.min(...values),
    loadMax: Math.max(...values),
    loadPoints: JSON.stringify(points.slice(-MAX_MINUTE_POINTS).map((p) => [p.at - start, p.value])),
  };
  return { row: { rowKey: key, props }, minute: { key, points, ...(held === undefined ? {} : { held }) } };
}

/** Events for the marked fields that rose since the last row (none without one: the rise is unknown). */
function rises(before: HistoryFields | undefined, obs: HistoryObservation): string[] {
  if (!before || !obs.risesMarked) return [];
  return Object.entries(obs.risesMarked).flatMap(([field, words]) => {
    const rise = (obs.fields[field] ?? 0) - (before[field] ?? 0);
    return rise > 0 ? [`${rise} ${words}`] : [];
  });
}

/** The samples of both, by time, each instant once. */
function merge(known: readonly Sample[], fresh: readonly Sample[]): Sample[] {
  const seen = new Set(known.map((p) => p.at));
  const added = fresh.filter((s) => !seen.has(s.at));
  return added.length === 0 ? [...known] : [...known, ...added].sort((a, b) => a.at - b.at);
}

function sameFields(a: HistoryFields, b: HistoryFields): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}
