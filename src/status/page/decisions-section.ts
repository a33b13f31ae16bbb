/**
 * The decision log on the status page, newest first, filterable by object: every row carries
 * its object, the filter hides the others (the page's script does it as the selection changes;
 * the server does it for the selection the page was opened with).
 */
import type { DecisionStatus } from '../status.js';
import { esc } from './html.js';
import { clockTime } from '../format.js';

export function renderDecisions(decisions: readonly DecisionStatus[], objects: readonly string[], filter: string | undefined, now: number): string {
  const known = [...new Set([...objects, ...decisions.map((d) => d.object)])];
  const options = [`<option value=""${filter ? '' : ' selected'}>every object</option>`, ...known.map((o) => `<option value="${esc(o)}"${o === filter ? ' selected' : ''}>${esc(o)}</option>`)];
  const rows = decisions
    .map((d) => {
      const hidden = filter && d.object !== filter ? ' hidden' : '';
      const error = d.error ? ` class="error"` : '';
      return `<tr data-object="${esc(d.object)}"${error}${hidden}><td data-label="at">${esc(clockTime(d.at, now))}</td><td data-label="object">${esc(d.object)}</td><td data-label="decision">${esc(d.decision)}</td><td data-label="why">${esc(d.reason)}</td></tr>`;
    })
    .join('\n');
  return `<section class="decisions" id="decisions">
<h2>decisions</h2>
<label>object <select id="object-filter" name="object">${options.join('')}</select></label>
<table><thead><tr><th>at</th><th>object</th><th>decision</th><th>why</th></tr></thead><tbody>
${rows}
</tbody></table>
</section>`;
}
