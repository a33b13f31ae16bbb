/**
 * One pool on the status page: capacity and VMs by state, the inventory, the safety switch with
 * the exact ids on each side, the backoff with its countdown, the cache's age, the timeline.
 */
import type { PoolStatus } from '../pool-status.js';
import type { ChartSpec } from './timeline.js';
import { timelineFigure } from './timeline-figure.js';
import { esc } from './html.js';
import { renderPoolNotes } from './pool-notes-section.js';
import { clockTime, formatDuration, relative } from '../format.js';

export function renderPool(pool: PoolStatus, chart: ChartSpec, now: number): string {
  // Every count status has, in its order: counts added later show up by themselves.
  const counts = Object.entries(pool.counts).filter(([, v]) => typeof v === 'number');
  return `<section class="object pool" id="${esc(`pool-${pool.name}`)}" data-object="${esc(`pool/${pool.name}`)}">
<h2>pool ${esc(pool.name)} <small>scale set ${esc(pool.scaleSet.resourceGroup)}/${esc(pool.scaleSet.name)}${pool.scaleSet.orchestrationMode ? ` (${esc(pool.scaleSet.orchestrationMode)})` : ''}</small></h2>
<p class="summary">${pool.wanted === undefined ? '' : `<span class="figure" data-field="wanted">wanted ${pool.wanted}</span>\n`}<span class="figure" data-field="capacity">capacity ${pool.scaleSet.capacity ?? 'unknown'}</span>
<span class="figure" data-field="inventory">inventory ${pool.machines.length}</span>
<span class="figure">VMs: ${counts.map(([k, v]) => `<span data-field="${esc(k)}">${esc(v)} ${esc(k)}</span>`).join(', ')}</span></p>
${safetySwitch(pool, now)}${renderPoolNotes(pool, now)}${backoff(pool, now)}${cache(pool, now)}
${timelineFigure(chart, now)}
${instances(pool)}${inventory(pool)}
</section>`;
}

function safetySwitch(pool: PoolStatus, now: number): string {
  const s = pool.safetySwitch;
  if (!s) return `<p class="ok" data-field="safety-switch">safety switch: clear (ARM and the inventory agree)</p>\n`;
  const ids = (list: string[]) => (list.length ? `<ul>${list.map((id) => `<li><code>${esc(id)}</code></li>`).join('')}</ul>` : '<p>none</p>');
  return `<div class="alert safety-switch" role="alert" data-field="safety-switch">
<strong>Safety switch tripped</strong> since ${esc(clockTime(s.since, now))} (${esc(relative(s.since, now))}): the pool does nothing until ARM and the inventory agree (<code>drover machines forget</code> resolves a machine that is gone).
<div class="sides"><div><h3>only in ARM (${s.providerOnly.length})</h3>${ids(s.providerOnly)}</div><div><h3>only in the inventory (${s.inventoryOnly.length})</h3>${ids(s.inventoryOnly)}</div></div>
</div>\n`;
}

function backoff(pool: PoolStatus, now: number): string {
  if (!pool.backoffUntil) return '';
  const until = Date.parse(pool.backoffUntil);
  return `<p class="warn" data-field="backoff">creations backed off until ${esc(clockTime(pool.backoffUntil, now))} after failed provisioning: <span class="countdown" data-until="${until}">${esc(formatDuration(until - now))} left</span></p>\n`;
}

function cache(pool: PoolStatus, now: number): string {
  const c = pool.cache;
  if (!c) return `<p data-field="cache">instance cache: not filled yet</p>\n`;
  const age = c.lastRefresh ? `<span class="age" data-since="${Date.parse(c.lastRefresh)}">${esc(formatDuration(now - Date.parse(c.lastRefresh)))}</span> old` : 'never refreshed';
  // A refresh that is due happens on the next pass that reads the pool, not at a time of its own.
  const next = !c.nextRefresh ? '' : Date.parse(c.nextRefresh) > now ? `, next refresh ${esc(relative(c.nextRefresh, now))}` : ', refresh due on the next pass';
  const extra = [c.lastError ? `last error: ${esc(c.lastError)}` : '', c.slowdown ? `slowed down: ${esc(c.slowdown)}` : ''].filter(Boolean).join('; ');
  return `<p data-field="cache">instance cache ${age}${next}, ${c.size} VMs, ${c.refreshes} refreshes${extra ? `; ${extra}` : ''}</p>\n`;
}

/** Rows a pool's VM and inventory tables show at most (VMs with an error first); `drover status --json` has them all. */
export const MAX_TABLE_ROWS = 50;

/** The line that closes a table cut at MAX_TABLE_ROWS. */
function more(total: number, columns: number): string {
  return total > MAX_TABLE_ROWS ? `\n<tr><td colspan="${columns}">… and ${total - MAX_TABLE_ROWS} more (<code>drover status --json</code> lists them all)</td></tr>` : '';
}

function instances(pool: PoolStatus): string {
  if (pool.instances.length === 0) return '';
  const withErrorsFirst = [...pool.instances.filter((i) => i.errorInfo), ...pool.instances.filter((i) => !i.errorInfo)];
  const rows = withErrorsFirst
    .slice(0, MAX_TABLE_ROWS)
    .map((i) => `<tr><td><code>${esc(i.id)}</code></td><td>${esc(i.state ?? 'unknown')}${i.protected ? ' (protected from scale-in)' : ''}</td><td>${esc(i.powerState ?? '')}</td><td>${i.errorInfo ? esc(`${i.errorInfo.errorClass} ${i.errorInfo.errorCode}: ${i.errorInfo.errorMessage}`) : ''}</td></tr>`)
    .join('\n');
  return `<details><summary>VMs (${pool.instances.length})</summary><table><thead><tr><th>id</th><th>state</th><th>power</th><th>error</th></tr></thead><tbody>
${rows}${more(pool.instances.length, 4)}
</tbody></table></details>\n`;
}

function inventory(pool: PoolStatus): string {
  if (pool.machines.length === 0) return '';
  const rows = pool.machines
    .slice(0, MAX_TABLE_ROWS)
    .map((m) => `<tr><td><code>${esc(m.providerId)}</code></td><td>${esc(m.providerStatus ?? '')}</td><td>${esc(m.address ?? '')}</td></tr>`)
    .join('\n');
  return `<details><summary>inventory (${pool.machines.length})</summary><table><thead><tr><th>provider id</th><th>status</th><th>address</th></tr></thead><tbody>
${rows}${more(pool.machines.length, 3)}
</tbody></table></details>\n`;
}
