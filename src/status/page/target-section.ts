/**
 * One target on the status page: desired, scale and ready replicas now and as a timeline over
 * the last hour, the Active condition, activation latencies (the last hour's and the last one).
 */
import { HISTORY_PAGE_WINDOW_MS, type HistoryRow } from '../../state/history.js';
import type { TargetStatus } from '../target-status.js';
import type { ChartSpec } from './timeline.js';
import { esc } from './html.js';
import { timelineFigure } from './timeline-figure.js';
import { policyLine } from '../policy-status.js';
import { clockTime, relative } from '../format.js';

export function renderTarget(target: TargetStatus, rows: readonly HistoryRow[], chart: ChartSpec, now: number): string {
  const desired = target.desiredScale === -1 ? 'no sample yet' : (target.desiredScale ?? 'unknown');
  return `<section class="object target" id="${esc(`target-${target.name}`)}" data-object="${esc(`target/${target.name}`)}">
<h2>target ${esc(target.name)}</h2>
<p class="summary"><span class="figure" data-field="desired">desired ${esc(desired)}</span>
<span class="figure" data-field="scale">scale ${target.requestedScale ?? 'unknown'}</span>
<span class="figure" data-field="ready">ready ${target.actualScale ?? 'unknown'}</span></p>
${active(target, now)}${target.lastError ? `<p class="alert" data-field="error">last error: ${esc(target.lastError)}</p>\n` : ''}${sources(target, now)}${policy(target)}${timelineFigure(chart, now)}
${activations(target, rows, now)}</section>`;
}

/** Each load source: its kind, newest value and its age (a push: when it landed and whether it was served), or why its last read failed. */
function sources(t: TargetStatus, now: number): string {
  if (t.sources.length === 0) return '';
  const item = (s: TargetStatus['sources'][number]) => {
    const age = s.at ? ` (${esc(relative(s.at, now))})` : '';
    const value =
      s.served === undefined
        ? s.value === null ? 'no value yet' : `${s.value}${age}`
        : s.value === null || s.at === null ? 'nothing pushed yet' : `${s.value} pushed ${esc(clockTime(s.at, now))}${age}, ${s.served ? 'served' : 'waiting for a reconcile'}`;
    const error = s.error ? ` <span class="alert">failing: ${esc(s.error)}</span>` : '';
    return `<li data-source="${esc(s.name)}">${esc(s.name)} (${esc(s.kind)}): ${value}${dataAge(s.measuredAt, now)}${error}</li>`;
  };
  return `<ul class="sources" data-field="sources">${t.sources.map(item).join('')}</ul>\n`;
}

/** A kind whose data lags its read (azureMonitor): how old the data behind its value is. */
function dataAge(measuredAt: string | undefined, now: number): string {
  if (measuredAt === undefined) return '';
  const minutes = Math.max(0, Math.round((now - Date.parse(measuredAt)) / 60_000));
  return `, data from ${minutes} min ago`;
}

function active(t: TargetStatus, now: number): string {
  const since = t.activeSince ? ` since ${esc(clockTime(t.activeSince, now))} (${esc(relative(t.activeSince, now))})` : '';
  const extras = [
    t.wakingSince ? `waking since ${esc(clockTime(t.wakingSince, now))}` : '',
    t.activatorSeenSince ? `activator in front since ${esc(clockTime(t.activatorSeenSince, now))}` : '',
    t.panicSince ? `panicking since ${esc(clockTime(t.panicSince, now))}` : '',
    t.boundBy ? `bound by ${esc(t.boundBy)}` : '',
    t.paused ? `paused (${esc(t.paused.mode)}${t.paused.replicas !== null ? ` at ${t.paused.replicas}` : ''})` : '',
  ].filter(Boolean);
  return `<p data-field="active">Active <strong class="condition condition-${esc(t.active)}">${esc(t.active)}</strong>${t.reason ? ` (${esc(t.reason)})` : ''}${since}${extras.length ? `; ${extras.join('; ')}` : ''}</p>\n`;
}

function policy(t: TargetStatus): string {
  const line = t.policy && policyLine(t.policy);
  return line ? `<p data-field="policy">${esc(line)}</p>\n` : '';
}

function activations(t: TargetStatus, rows: readonly HistoryRow[], now: number): string {
  const wakes = rows.flatMap((r) => (r.fields?.activationMs !== undefined && r.at >= now - HISTORY_PAGE_WINDOW_MS ? [{ at: r.at, ms: r.fields.activationMs }] : []));
  const last = t.lastActivation ? `last wake from zero: ${t.lastActivation.latencyMs} ms, ready at ${esc(clockTime(t.lastActivation.at, now))}` : 'no wake from zero recorded';
  const list = wakes.length ? `<ul>${wakes.map((w) => `<li>${esc(clockTime(new Date(w.at).toISOString(), now))}: ${w.ms} ms</li>`).join('')}</ul>` : '';
  return `<div data-field="activations"><p>activation latency: ${last}${wakes.length ? `; this hour (${wakes.length}):` : ''}</p>${list}</div>\n`;
}
