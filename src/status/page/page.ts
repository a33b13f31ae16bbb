/**
 * The status page: one HTML document from the status view and the last hour of history, with
 * uPlot and the page's script inlined (no CDN, nothing fetched by the browser). Pure: data in,
 * string out; the handler does the reading. Its size does not grow with the fleet: the first
 * PAGE_SECTIONS objects (selection.ts) get their section and timeline, every other one a row of
 * a list that links to its own page; a pool's tables and a timeline's points are capped too.
 */
import type { HistoryRow } from '../../state/history.js';
import type { Status } from '../status.js';
import { CLIENT_SCRIPT } from './client-script.js';
import { renderDecisions } from './decisions-section.js';
import { esc, scriptJson } from './html.js';
import { renderPool } from './pool-section.js';
import { renderTarget } from './target-section.js';
import { renderFilter, renderListed } from './listed-section.js';
import { selectObjects, type PageSelection } from './selection.js';
import { poolChart, targetChart, type ChartSpec } from './timeline.js';

export interface PageOptions {
  now: number;
  /** The last hour's history rows by object key (`pool/workers`, `target/web`). */
  history: ReadonlyMap<string, readonly HistoryRow[]>;
  /** The query the page reloads with: the function key and the page's own settings. */
  refresh: { query: string; seconds: number };
  /** The object the page was opened on (`?object=`): drawn first, and the decision log filtered to it. */
  object?: string;
  /** `?match=`: only the objects whose key contains it. */
  match?: string;
  /** The objects drawn and listed; by default chosen from the status and the filter. */
  selection?: PageSelection;
  /** Drawn objects whose history could not be read, with why: their timeline says so. */
  unavailable?: ReadonlyMap<string, string>;
  /** uPlot's script and stylesheet; without them the page says the timelines are unavailable. */
  uplot?: { js: string; css: string };
  /** The CSP nonce the inline script and style elements carry. */
  nonce: string;
}

/** Query parameters the page keeps when it reloads itself. */
const KEPT = ['code', 'object', 'match', 'refresh'] as const;

/** The query string of the page's reload: the function key it was opened with, its filter and refresh period. */
export function refreshQuery(query: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const k of KEPT) {
    const v = query.get(k);
    if (v !== null && v !== '') kept.set(k, v);
  }
  return kept.toString();
}

export function renderStatusPage(status: Status, o: PageOptions): string {
  const selection = o.selection ?? selectObjects(status, { ...(o.object ? { object: o.object } : {}), ...(o.match ? { match: o.match } : {}) });
  const rowsOf = (object: string) => o.history.get(object) ?? [];
  const drawn = new Map(selection.drawn.map((key, i) => [key, i]));
  const inOrder = <T>(items: T[], key: (x: T) => string) => items.filter((x) => drawn.has(key(x))).sort((a, b) => drawn.get(key(a))! - drawn.get(key(b))!);
  const withUnavailable = (chart: ChartSpec, object: string): ChartSpec => {
    const why = o.unavailable?.get(object);
    return why === undefined ? chart : { ...chart, unavailable: why };
  };
  const pools = inOrder(status.pools, (p) => `pool/${p.name}`).map((p) => ({ p, chart: withUnavailable(poolChart(p, rowsOf(`pool/${p.name}`), o.now), `pool/${p.name}`) }));
  const targets = inOrder(status.targets, (t) => `target/${t.name}`).map((t) => ({ t, chart: withUnavailable(targetChart(t, rowsOf(`target/${t.name}`), o.now), `target/${t.name}`) }));
  const objects = [...status.pools.map((p) => `pool/${p.name}`), ...status.targets.map((t) => `target/${t.name}`)];
  const charts = [...pools.map((x) => x.chart), ...targets.map((x) => x.chart)].filter((c) => c.unavailable === undefined);
  const data = { charts, refresh: o.refresh };
  const nonce = esc(o.nonce);
  const generated = new Date(o.now).toISOString();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Drover status</title>
${o.uplot ? `<style nonce="${nonce}">${o.uplot.css.replace(/<\/style/gi, '<\\/style')}</style>` : ''}
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<header><h1>Drover</h1><p>status at <time datetime="${generated}">${generated.slice(0, 19).replace('T', ' ')}Z</time>${o.refresh.seconds > 0 ? `, refreshed every ${o.refresh.seconds}s` : ''} · <a href="?${esc(jsonQuery(o.refresh.query))}">JSON</a></p></header>
<main>
${renderFilter(selection, o)}
<h2 class="group">pools (${status.pools.length}${pools.length < status.pools.length ? `, ${pools.length} drawn` : ''})</h2>
${pools.map((x) => renderPool(x.p, x.chart, o.now)).join('\n') || (status.pools.length ? '<p>none drawn: see the list</p>' : '<p>no pools configured</p>')}
<h2 class="group">targets (${status.targets.length}${targets.length < status.targets.length ? `, ${targets.length} drawn` : ''})</h2>
${targets.map((x) => renderTarget(x.t, rowsOf(`target/${x.t.name}`), x.chart, o.now)).join('\n') || (status.targets.length ? '<p>none drawn: see the list</p>' : '<p>no targets configured</p>')}
${renderListed(status, selection, o)}
${probes(status)}
${renderDecisions(status.decisions, objects, o.object, o.now)}
</main>
<script type="application/json" id="drover-data">${scriptJson(data)}</script>
${o.uplot ? `<script nonce="${nonce}">${o.uplot.js.replace(/<\/script/gi, '<\\/script')}</script>` : ''}
<script nonce="${nonce}">${CLIENT_SCRIPT}</script>
</body>
</html>
`;
}

function jsonQuery(query: string): string {
  const q = new URLSearchParams(query);
  q.delete('refresh');
  q.delete('object');
  q.set('format', 'json');
  return q.toString();
}

function probes(status: Status): string {
  if (status.probes.length === 0) return '';
  const rows = status.probes
    .map((p) => `<tr><td>${esc(p.target)}</td><td>${p.inFlight ? 'in flight' : 'idle'}</td><td>${p.attempts}</td><td>${esc(p.lastResult ?? '')}</td></tr>`)
    .join('\n');
  return `<section class="probes"><h2>activator probes</h2><table><thead><tr><th>target</th><th>state</th><th>attempts</th><th>last result</th></tr></thead><tbody>
${rows}
</tbody></table></section>`;
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 0 16px 48px; color: #222; }
header { display: flex; align-items: baseline; gap: 16px; border-bottom: 1px solid #ddd; }
h1 { font-size: 20px; margin: 12px 0; }
h2 { font-size: 16px; margin: 8px 0; }
h2.group { margin-top: 24px; text-transform: uppercase; letter-spacing: .05em; color: #555; font-size: 13px; }
h2 small { font-weight: normal; color: #666; }
h3 { font-size: 13px; margin: 4px 0; }
.object { border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; margin: 12px 0; }
.summary .figure { display: inline-block; margin-right: 18px; font-weight: 600; }
.alert { background: #fdecea; border: 1px solid #f5c2c0; padding: 8px; border-radius: 4px; }
.warn { background: #fff4e5; padding: 4px 8px; border-radius: 4px; }
.ok { color: #2a7a2a; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
code { font-size: 12px; word-break: break-all; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; border-bottom: 1px solid #eee; padding: 3px 6px; vertical-align: top; }
tr.error td { color: #a40000; }
figure { margin: 8px 0; }
figcaption { color: #555; font-size: 12px; }
.chart { width: 100%; min-height: 220px; }
ol.events { list-style: none; padding: 0; margin: 4px 0; font-size: 12px; columns: 2 280px; }
ol.events time { color: #666; font-variant-numeric: tabular-nums; }
.event-failed { color: #a40000; } .event-safety { color: #a43c00; } .event-wake { color: #2a7a2a; }
.u-legend { font-size: 12px; }
.u-legend .u-series { padding: 0 6px; }
header { flex-wrap: wrap; }
.summary .figure { max-width: 100%; }
td, th, p, li, summary { overflow-wrap: break-word; }
.decisions td:first-child { white-space: nowrap; }
@media (max-width: 640px) {
  body { padding: 0 8px 32px; }
  .object { padding: 6px 8px; }
  .sides { grid-template-columns: 1fr; }
  /* The tables become one block per row, each cell on its own line under its column's name. */
  table, thead, tbody, tr, th, td { display: block; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  tr { border-bottom: 1px solid #ddd; padding: 4px 0; }
  tr[hidden] { display: none; }
  td { border: 0; padding: 1px 0; }
  td[data-label]::before { content: attr(data-label) ": "; color: #666; }
}
form.filter { margin: 12px 0; display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
.condition-True { color: #2a7a2a; } .condition-False { color: #a45a00; } .condition-Unknown { color: #666; }
`;
