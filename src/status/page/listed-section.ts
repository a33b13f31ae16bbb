/**
 * The objects the status page does not draw (selection.ts), one row each with its figures now
 * and its trouble, linked to a page opened on it (`?object=`); and the filter (`?match=`) that
 * narrows both to the objects whose key contains a text. Shown only when some object is not
 * drawn or a filter is in force, so a small fleet's page is as before.
 */
import type { PoolStatus } from '../pool-status.js';
import type { Status } from '../status.js';
import type { TargetStatus } from '../target-status.js';
import { capText } from '../../text/cap.js';
import { esc } from './html.js';
import type { PageSelection } from './selection.js';

/** A listed object's error, cut to this many characters (its own page has it whole). */
const LISTED_ERROR_CHARS = 160;

interface ListOptions {
  refresh: { query: string };
  match?: string;
}

export function renderFilter(selection: PageSelection, o: ListOptions): string {
  if (selection.listed.length === 0 && o.match === undefined) return '';
  const kept = new URLSearchParams(o.refresh.query);
  const hidden = ['code', 'refresh'].flatMap((k) => (kept.get(k) === null ? [] : [`<input type="hidden" name="${k}" value="${esc(kept.get(k))}">`]));
  const counts = `${selection.drawn.length} drawn by trouble and latest decision, ${selection.listed.length} listed below${selection.hidden ? `, ${selection.hidden} left out by the filter` : ''}`;
  return `<form class="filter" method="get" role="search"><label>objects whose name contains <input type="search" name="match" value="${esc(o.match ?? '')}" maxlength="100"></label> <button>filter</button>${hidden.join('')} <span>${esc(counts)}</span></form>`;
}

export function renderListed(status: Pick<Status, 'pools' | 'targets'>, selection: PageSelection, o: ListOptions): string {
  if (selection.listed.length === 0) return '';
  const pools = new Map(status.pools.map((p) => [`pool/${p.name}`, p]));
  const targets = new Map(status.targets.map((t) => [`target/${t.name}`, t]));
  const rows = selection.listed.map((key) => {
    const pool = pools.get(key);
    const target = targets.get(key);
    const [figures, trouble] = pool ? poolLine(pool) : target ? targetLine(target) : ['', ''];
    return `<tr${trouble ? ' class="error"' : ''}><td data-label="object"><a href="?${esc(openedOn(o.refresh.query, key))}">${esc(key)}</a></td><td data-label="now">${esc(figures)}</td><td data-label="trouble">${esc(trouble)}</td></tr>`;
  });
  return `<section class="listed" id="listed">
<h2>other objects (${selection.listed.length})</h2>
<table><thead><tr><th>object</th><th>now</th><th>trouble</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>
</section>`;
}

/** The page's query with `object` set: the page opened on that object. */
function openedOn(query: string, key: string): string {
  const q = new URLSearchParams(query);
  q.set('object', key);
  return q.toString();
}

function poolLine(p: PoolStatus): [string, string] {
  const figures = `${p.wanted === undefined ? '' : `wanted ${p.wanted}, `}capacity ${p.scaleSet.capacity ?? 'unknown'}, ${p.counts.healthy ?? 0} healthy, ${p.counts.broken ?? 0} broken`;
  const trouble = p.safetySwitch ? 'safety switch tripped' : p.cache?.lastError ? capText(p.cache.lastError, LISTED_ERROR_CHARS) : p.backoffUntil ? `backed off until ${p.backoffUntil}` : '';
  return [figures, trouble];
}

function targetLine(t: TargetStatus): [string, string] {
  const desired = t.desiredScale === -1 ? 'no sample yet' : (t.desiredScale ?? 'unknown');
  const figures = `desired ${desired}, scale ${t.requestedScale ?? 'unknown'}, ready ${t.actualScale ?? 'unknown'}, Active ${t.active}${t.paused ? ', paused' : ''}`;
  return [figures, t.lastError ? capText(t.lastError, LISTED_ERROR_CHARS) : ''];
}
