/**
 * The timelines of the status page as uPlot reads them: x in epoch seconds, one array per
 * series, `null` where a row did not hold the field. The last hour's history rows, then the
 * object's state now as the closing point, so the line reaches the present.
 */
import { poolFields, type HistoryRow, type PoolHistoryFields, type TargetHistoryFields } from '../../state/history.js';
import type { PoolStatus } from '../pool-status.js';
import type { TargetStatus } from '../target-status.js';

export interface SeriesSpec {
  label: string;
  field: string;
  color: string;
  /** The y scale: replicas and machines share `count`; load has its own. */
  scale: 'count' | 'load';
  /** Canvas line dash, for lines that often coincide with another. */
  dash?: number[];
}

export interface ChartSpec {
  id: string;
  title: string;
  series: SeriesSpec[];
  /** [x (epoch s), ...one array per series]. */
  data: (number | null)[][];
  /** How many points came from the history table (the rest is the closing "now" point). */
  historyPoints: number;
}

// Later series are drawn over earlier ones: the targets a count follows (capacity, desired)
// come last and dashed, so they stay visible where the lines meet.
const POOL_SERIES: SeriesSpec[] = [
  { label: 'running', field: 'running', color: '#2ca02c', scale: 'count' },
  { label: 'creating', field: 'creating', color: '#ff7f0e', scale: 'count' },
  { label: 'deleting', field: 'deleting', color: '#9467bd', scale: 'count' },
  { label: 'failed', field: 'failed', color: '#d62728', scale: 'count' },
  { label: 'inventory', field: 'inventory', color: '#7f7f7f', scale: 'count', dash: [2, 3] },
  { label: 'capacity', field: 'capacity', color: '#1f77b4', scale: 'count', dash: [8, 4] },
];

const TARGET_SERIES: SeriesSpec[] = [
  { label: 'load', field: 'load', color: '#8c564b', scale: 'load' },
  { label: 'ready', field: 'ready', color: '#2ca02c', scale: 'count' },
  { label: 'scale', field: 'scale', color: '#ff7f0e', scale: 'count' },
  { label: 'desired', field: 'desired', color: '#1f77b4', scale: 'count', dash: [8, 4] },
];

export function chartId(object: string): string {
  return `chart-${object.replace(/[^A-Za-z0-9_-]/g, (ch) => `_${ch.charCodeAt(0).toString(16)}`)}`;
}

/** The pool's fields now, from its status. */
export function poolNow(pool: PoolStatus): PoolHistoryFields {
  return poolFields(pool.instances, pool.machines.length, pool.scaleSet.capacity ?? undefined);
}

/** The target's fields now, from its status; undefined before its first reconcile. */
export function targetNow(target: TargetStatus): TargetHistoryFields | undefined {
  if (target.desiredScale === null || target.actualScale === null || target.requestedScale === null) return undefined;
  return { desired: target.desiredScale, scale: target.requestedScale, ready: target.actualScale };
}

export function poolChart(pool: PoolStatus, rows: readonly HistoryRow[], now: number): ChartSpec {
  return chart(`pool/${pool.name}`, `${pool.name}: capacity and VMs by state, last hour`, POOL_SERIES, rows, poolNow(pool), now);
}

export function targetChart(target: TargetStatus, rows: readonly HistoryRow[], now: number): ChartSpec {
  return chart(`target/${target.name}`, `${target.name}: desired, scale and ready replicas, load, last hour`, TARGET_SERIES, rows, targetNow(target), now);
}

function chart(object: string, title: string, series: SeriesSpec[], rows: readonly HistoryRow[], current: object | undefined, now: number): ChartSpec {
  const points: { at: number; fields: Record<string, unknown> }[] = rows.map((r) => ({ at: r.at, fields: r.fields as unknown as Record<string, unknown> }));
  // The closing point carries the load of the last row: the status has no load of its own.
  const lastLoad = points.at(-1)?.fields.load;
  if (current && now > (points.at(-1)?.at ?? -Infinity)) points.push({ at: now, fields: { ...(lastLoad === undefined ? {} : { load: lastLoad }), ...current } });
  // Counts and load are never negative: desired -1 ("no sample yet") is a gap, not a dip.
  const value = (v: unknown) => (typeof v === 'number' && v >= 0 ? v : null);
  return {
    id: chartId(object),
    title,
    series,
    data: [points.map((p) => Math.floor(p.at / 1000)), ...series.map((s) => points.map((p) => value(p.fields[s.field])))],
    historyPoints: rows.length,
  };
}
