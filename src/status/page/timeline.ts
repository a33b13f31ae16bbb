/**
 * The timelines of the status page as uPlot reads them: x in epoch seconds (with milliseconds),
 * one array per series. Every change row of the window is a point at its own time, every load
 * sample too, and the object's state now closes the line; each series holds its value from one
 * point to the next (the page draws steps), so a value is drawn exactly as long as it held.
 * Events (a VM failed, deleted, adopted, the safety switch, a wake from zero) are marks at
 * their times. Pool series are every count present, so counts added later show up by themselves.
 */
import { HISTORY_PAGE_WINDOW_MS, type HistoryFields, type HistoryRow } from '../../state/history.js';
import type { PoolStatus } from '../pool-status.js';
import type { TargetStatus } from '../target-status.js';

export interface SeriesSpec {
  label: string;
  field: string;
  color: string;
  /** The y scale: replicas and VMs share `count`; load has its own. */
  scale: 'count' | 'load';
  /** Line width: series that often coincide are drawn wide and light under narrow ones. */
  width: number;
  /** Canvas line dash. */
  dash?: number[];
  /** Opacity of the line (wide lines underneath are light). */
  alpha?: number;
  /** The value now, for the legend while nothing is hovered. */
  latest: number | null;
}

export interface ChartEvent {
  /** Epoch seconds. */
  at: number;
  text: string;
  kind: 'failed' | 'deleted' | 'adopted' | 'safety' | 'wake' | 'active' | 'other';
  /** What the mark on the chart says: its kind, or the whole text when that is short. */
  label: string;
}

export interface ChartSpec {
  id: string;
  title: string;
  /** The axes' titles: time, the counts (left) and the load (right). */
  axes: { x: string; count: string; load?: string };
  series: SeriesSpec[];
  /** [x (epoch s), ...one array per series]. */
  data: (number | null)[][];
  events: ChartEvent[];
  /** How many rows came from the history table. */
  historyPoints: number;
  /** Earlier points left out: a chart holds the newest MAX_CHART_POINTS; absent when none were. */
  droppedPoints?: number;
  /** Why the timeline cannot be drawn (its history read failed or ran out of time); absent when it can. */
  unavailable?: string;
}

/** Points one chart holds at most (an hour of changes every 5 s): the newest are kept. */
export const MAX_CHART_POINTS = 720;
/** Events one chart marks at most, the newest. */
export const MAX_CHART_EVENTS = 100;

type Style = Omit<SeriesSpec, 'field' | 'latest' | 'label'>;

// Drawn in this order, later over earlier: what a count follows (capacity, desired) goes first,
// wide and light, so the narrower lines on top leave it visible where they coincide.
const POOL_STYLES: Record<string, Style> = {
  capacity: { color: '#1f77b4', scale: 'count', width: 7, alpha: 0.35 },
  inventory: { color: '#7f7f7f', scale: 'count', width: 3, dash: [6, 4] },
  healthy: { color: '#2ca02c', scale: 'count', width: 1.5 },
  creating: { color: '#ff7f0e', scale: 'count', width: 1.5, dash: [2, 2] },
  broken: { color: '#d62728', scale: 'count', width: 2 },
  deleting: { color: '#9467bd', scale: 'count', width: 1.5, dash: [4, 2] },
};
const TARGET_STYLES: Record<string, Style> = {
  desired: { color: '#1f77b4', scale: 'count', width: 7, alpha: 0.35 },
  scale: { color: '#ff7f0e', scale: 'count', width: 3, dash: [6, 4] },
  ready: { color: '#2ca02c', scale: 'count', width: 1.5 },
  load: { color: '#8c564b', scale: 'load', width: 1.5, dash: [1, 2] },
};
/** For counts the page does not know yet. */
const PALETTE = ['#17becf', '#bcbd22', '#e377c2', '#8c564b', '#7f7f7f', '#393b79'];
/** Fields that are no line of their own. */
const NOT_DRAWN = new Set(['activationMs', 'active']);

export function chartId(object: string): string {
  return `chart-${object.replace(/[^A-Za-z0-9_-]/g, (ch) => `_${ch.charCodeAt(0).toString(16)}`)}`;
}

/** The pool's fields now, from its status: what its history rows hold. */
export function poolNow(pool: PoolStatus): HistoryFields {
  return { ...(pool.scaleSet.capacity === null ? {} : { capacity: pool.scaleSet.capacity }), inventory: pool.machines.length, ...numbers(pool.counts) };
}

/** The target's fields now, from its status; undefined before its first reconcile. */
export function targetNow(target: TargetStatus): HistoryFields | undefined {
  if (target.desiredScale === null || target.actualScale === null || target.requestedScale === null) return undefined;
  return { desired: target.desiredScale, scale: target.requestedScale, ready: target.actualScale };
}

export function poolChart(pool: PoolStatus, rows: readonly HistoryRow[], now: number): ChartSpec {
  return chart(`pool/${pool.name}`, `${pool.name}: capacity, inventory and VMs by health, last hour`, { x: 'time (UTC)', count: 'VMs' }, POOL_STYLES, rows, poolNow(pool), now);
}

export function targetChart(target: TargetStatus, rows: readonly HistoryRow[], now: number): ChartSpec {
  return chart(`target/${target.name}`, `${target.name}: desired, scale and ready replicas, load, last hour`, { x: 'time (UTC)', count: 'replicas', load: 'load' }, TARGET_STYLES, rows, targetNow(target), now);
}

function chart(object: string, title: string, axes: ChartSpec['axes'], styles: Record<string, Style>, rows: readonly HistoryRow[], current: HistoryFields | undefined, now: number): ChartSpec {
  // The state the window starts from (a row before it) is drawn from the window's start.
  const from = now - HISTORY_PAGE_WINDOW_MS;
  const states = rows.flatMap((r) => (r.fields ? [{ at: Math.max(r.at, from), fields: r.fields }] : []));
  if (current) states.push({ at: Math.max(now, states.at(-1)?.at ?? now), fields: current });
  const loads = rows.flatMap((r) => r.load?.points ?? []).filter((p) => p.at >= from);
  const times = [...new Set([...states.map((s) => s.at), ...loads.map((l) => l.at)])].sort((a, b) => a - b);
  const series = seriesOf(styles, states, loads.length > 0);
  // Counts and load are never negative: desired -1 ("no sample yet") is a gap, not a dip.
  const value = (v: number | undefined) => (v !== undefined && v >= 0 ? v : null);
  const columns = series.map((s) => {
    const points = s.field === 'load' ? loads.map((l) => ({ at: l.at, v: l.value })) : states.map((st) => ({ at: st.at, v: st.fields[s.field] }));
    return holdForward(times, points).map(value);
  });
  for (const [i, s] of series.entries()) s.latest = columns[i]!.at(-1) ?? null;
  // Each column holds its values forward, so the newest points alone still draw from where they start.
  const dropped = Math.max(0, times.length - MAX_CHART_POINTS);
  return {
    id: chartId(object),
    title,
    axes: loads.length > 0 || axes.load === undefined ? axes : { x: axes.x, count: axes.count },
    series,
    data: [times.slice(dropped).map((t) => t / 1000), ...columns.map((c) => c.slice(dropped))],
    events: rows
      .filter((r) => r.at >= from)
      .flatMap((r) => r.events.map((text) => event(r.at, text)))
      .slice(-MAX_CHART_EVENTS),
    historyPoints: rows.length,
    ...(dropped > 0 ? { droppedPoints: dropped } : {}),
  };
}

/** The known series first (in drawing order), then any other field present, skipping counts that stayed 0. */
function seriesOf(styles: Record<string, Style>, states: { fields: HistoryFields }[], hasLoad: boolean): SeriesSpec[] {
  const present = new Set<string>();
  for (const s of states) for (const [k, v] of Object.entries(s.fields)) if (!NOT_DRAWN.has(k) && (v > 0 || k in styles)) present.add(k);
  if (hasLoad) present.add('load');
  const known = Object.keys(styles).filter((k) => present.has(k));
  const others = [...present].filter((k) => !(k in styles)).sort();
  return [
    ...known.map((k) => ({ label: k, field: k, latest: null, ...styles[k]! })),
    ...others.map((k, i) => ({ label: k, field: k, latest: null, color: PALETTE[i % PALETTE.length]!, scale: 'count' as const, width: 1.5, dash: [3, 3] })),
  ];
}

/** The value each point set holds at each time: the latest point at or before it. */
function holdForward(times: readonly number[], points: readonly { at: number; v: number | undefined }[]): (number | undefined)[] {
  const out: (number | undefined)[] = [];
  let j = 0;
  let held: number | undefined;
  let seen = false;
  for (const t of times) {
    while (j < points.length && points[j]!.at <= t) {
      held = points[j]!.v;
      seen = true;
      j++;
    }
    out.push(seen ? held : undefined);
  }
  return out;
}

function event(at: number, text: string): ChartEvent {
  const kind = eventKind(text);
  return { at: at / 1000, text, kind, label: text.length <= 24 ? text : kind };
}

function eventKind(text: string): ChartEvent['kind'] {
  if (/failed|broken/.test(text)) return 'failed';
  if (/^deleted/.test(text)) return 'deleted';
  if (/^adopted/.test(text)) return 'adopted';
  if (/safety switch/.test(text)) return 'safety';
  if (/woke from zero/.test(text)) return 'wake';
  if (/^(active|inactive|activating)$/.test(text)) return 'active';
  return 'other';
}

function numbers(o: object): HistoryFields {
  const out: HistoryFields = {};
  for (const [k, v] of Object.entries(o)) if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  return out;
}
