/**
 * The self-contained HTML report of `drover replay --out`: per target one chart of the load
 * and of the desired and ready replicas of each configuration, drawn by uPlot (the status
 * page's chart library) inlined from node_modules, so the file opens anywhere, offline.
 *
 * Timelines are drawn on a common grid of at most DRAW_POINTS instants; each point is the
 * highest value in its interval, so a short spike (or a short dip to zero in ready replicas,
 * drawn as the lowest) still shows at a week's scale.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { summaryJson, type ReplayRunResult } from './report.js';
import type { Timeline } from './timeline.js';
import { TIME_INCREMENTS, timeTickLabels } from './time-axis.js';

const DRAW_POINTS = 2_000;

type Pick = 'max' | 'min';

/** The column's step function over `grid` intervals: its highest (or lowest) value in each. */
export function downsample(timeline: Timeline, column: 'load' | 'desired' | 'ready' | 'scale', grid: readonly number[], pick: Pick = 'max'): (number | null)[] {
  const n = timeline.length;
  const at = (k: number) => timeline.get('at', k);
  const value = (k: number) => timeline.get(column, k);
  const out: (number | null)[] = [];
  let i = 0;
  for (let g = 0; g < grid.length; g++) {
    const from = grid[g]!;
    const to = g + 1 < grid.length ? grid[g + 1]! : from + 1;
    // The row in force at `from`, then every row starting inside [from, to).
    while (i + 1 < n && at(i + 1) <= from) i++;
    let best = n > 0 && at(i) <= from ? value(i) : Number.NaN;
    for (let j = i + 1; j < n && at(j) < to; j++) {
      // An unknown value (a desired scale before any sample) is a gap, not a value.
      const v = value(j);
      if (!Number.isNaN(v)) best = Number.isNaN(best) ? v : pick === 'max' ? Math.max(best, v) : Math.min(best, v);
    }
    out.push(Number.isNaN(best) ? null : best);
  }
  return out;
}

/** At most DRAW_POINTS instants from `start` to `end` (ms). */
export function reportGrid(start: number, end: number): number[] {
  const points = Math.min(DRAW_POINTS, Math.max(2, Math.floor((end - start) / 1000) + 1));
  const step = (end - start) / (points - 1);
  return Array.from({ length: points }, (_, k) => Math.round(start + k * step));
}

/** One chart of a report page: series on a common time grid, with the table of each configuration's summary. */
export interface ReportChart {
  title: string;
  /** Seconds since the epoch. */
  x: number[];
  /** `load` on the right axis; the others on the left, coloured by `color` or by their configuration's style. */
  series: { label: string; values: (number | null)[]; load?: true; config?: number; color?: string }[];
  summaries: { config: string; summary: Record<string, unknown> }[];
  /** The left axis's label (default "replicas"). */
  unitsLabel?: string;
}

export async function renderHtmlReport(runs: ReplayRunResult[]): Promise<string> {
  const charts = runs[0]!.targets.map((target): ReportChart => {
    const start = Math.min(...runs.map((r) => r.targets.find((t) => t.name === target.name)?.summary.startedAt ?? Infinity));
    const end = Math.max(...runs.map((r) => r.targets.find((t) => t.name === target.name)?.summary.endedAt ?? -Infinity));
    const grid = reportGrid(start, end);
    const series: ReportChart['series'] = [{ label: 'load', values: downsample(target.timeline, 'load', grid), load: true }];
    const summaries: ReportChart['summaries'] = [];
    for (const [config, run] of runs.entries()) {
      const t = run.targets.find((x) => x.name === target.name);
      if (!t) continue;
      series.push({ label: `desired (${run.config})`, values: downsample(t.timeline, 'desired', grid), config });
      series.push({ label: `ready (${run.config})`, values: downsample(t.timeline, 'ready', grid, 'min'), config });
      summaries.push({ config: run.config, summary: summaryJson(t.summary) });
    }
    return { title: `target ${target.name}`, x: grid.map((ms) => ms / 1000), series, summaries };
  });
  return renderReportPage('drover replay', charts);
}

/** The self-contained page (uPlot inlined) drawing `charts`: the replay's report, and the quality bench's. */
/** `lead`: markup of the caller's own (already escaped) placed under the heading, before the charts. */
export async function renderReportPage(heading: string, charts: readonly ReportChart[], lead = ''): Promise<string> {
  const require = createRequire(import.meta.url);
  const [script, css] = await Promise.all([
    readFile(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  ]);
  // `</` cannot end the script element from inside a JSON string.
  const data = JSON.stringify(charts).replace(/<\//g, '<\\/');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(heading)}</title>
<style>${css}
body { font: 14px system-ui, sans-serif; margin: 1.5rem; color: #222; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
td, th { padding: .2rem .8rem; text-align: right; border-bottom: 1px solid #ddd; }
td:first-child, th:first-child { text-align: left; }
</style>
</head>
<body>
<h1>${escapeHtml(heading)}</h1>
${lead}<div id="charts"></div>
<script>${script.replace(/<\/script/gi, '<\\/script')}</script>
<script>
const charts = ${data};
const TIME_INCREMENTS = ${JSON.stringify(TIME_INCREMENTS)};
const timeTickLabels = ${timeTickLabels.toString()};
// Each configuration its own colours; the second dashed and thinner, drawn over the first, so
// a series equal to the first one's still shows both.
const styles = [
  { desired: '#1f77b4', ready: '#2ca02c', width: 3 },
  { desired: '#9467bd', ready: '#ff7f0e', width: 1.5, dash: [6, 4] },
];
const styleOf = (s) => {
  if (s.load) return { stroke: '#888', width: 1 };
  if (s.color) return { stroke: s.color, width: 1.5 };
  const style = styles[s.config % styles.length];
  return { stroke: s.label.startsWith('desired') ? style.desired : style.ready, width: style.width, ...(style.dash ? { dash: style.dash } : {}) };
};
window.replayPlots = [];
for (const chart of charts) {
  const section = document.createElement('section');
  const h = document.createElement('h2');
  h.textContent = chart.title;
  section.append(h);
  const table = document.createElement('table');
  table.className = 'summary';
  const keys = Object.keys(chart.summaries[0].summary);
  table.innerHTML = '<tr><th></th>' + chart.summaries.map((s) => '<th></th>').join('') + '</tr>' + keys.map(() => '<tr><td></td>' + chart.summaries.map(() => '<td></td>').join('') + '</tr>').join('');
  chart.summaries.forEach((s, c) => { table.rows[0].cells[c + 1].textContent = s.config; });
  keys.forEach((k, r) => {
    table.rows[r + 1].cells[0].textContent = k;
    chart.summaries.forEach((s, c) => { const v = s.summary[k]; table.rows[r + 1].cells[c + 1].textContent = Array.isArray(v) ? v.join(', ') : String(v); });
  });
  section.append(table);
  const plot = document.createElement('div');
  section.append(plot);
  document.getElementById('charts').append(section);
  const x = { space: 80, incrs: TIME_INCREMENTS, values: (u, splits, axis, space, step) => timeTickLabels(splits, step) };
  // The legend shows the last values whenever the pointer is not picking other ones.
  const lastValues = (u) => { if (u.cursor.idx == null) u.setLegend({ idx: chart.x.length - 1 }); };
  const u = new uPlot({
    hooks: { ready: [lastValues], setCursor: [lastValues] },
    width: Math.min(1200, window.innerWidth - 40),
    height: 360,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { x: { time: true }, load: {}, replicas: {} },
    axes: [x, { scale: 'replicas', label: chart.unitsLabel || 'replicas' }, { scale: 'load', label: 'load', side: 1, grid: { show: false } }],
    series: [{ label: 'time (UTC)', value: (u, v) => (v == null ? '--' : new Date(v * 1000).toISOString().slice(11, 19)) }].concat(chart.series.map((s) => ({ label: s.label, scale: s.load ? 'load' : 'replicas', ...styleOf(s), paths: uPlot.paths.stepped({ align: 1 }) }))),
  }, [chart.x].concat(chart.series.map((s) => s.values)), plot);
  window.replayPlots.push(u);
}
</script>
</body>
</html>
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
