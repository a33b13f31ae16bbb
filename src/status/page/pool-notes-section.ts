/**
 * The pool notes on the status page: the autoscale hold (an alert: the pool writes nothing), the
 * scale set's warnings, why scale-in stopped above the wanted count, and whether a VM Drover
 * deletes gets a terminate notification first.
 */
import { heldByMinAgeText, terminateNotificationText, type PoolNotesStatus } from '../pool-notes.js';
import { esc } from './html.js';
import { clockTime, relative } from '../format.js';

export function renderPoolNotes(notes: PoolNotesStatus, now: number): string {
  const out: string[] = [];
  if (notes.hold) {
    out.push(`<div class="alert autoscale-hold" role="alert" data-field="autoscale-hold"><strong>Held</strong> since ${esc(clockTime(notes.hold.since, now))} (${esc(relative(notes.hold.since, now))}): ${esc(notes.hold.reason)}. Nothing is written to the scale set until then.</div>`);
  }
  for (const warning of notes.warnings) out.push(`<p class="warn" data-field="warning">warning: ${esc(warning)}</p>`);
  if (notes.keptAboveWanted) out.push(`<p class="warn" data-field="kept-above-wanted">scale-in: ${esc(notes.keptAboveWanted)}</p>`);
  if (notes.heldByMinAge > 0) out.push(`<p data-field="held-by-min-age">${esc(heldByMinAgeText(notes.heldByMinAge))}</p>`);
  if (notes.terminateNotification) out.push(`<p data-field="terminate-notification">${esc(terminateNotificationText(notes.terminateNotification))}</p>`);
  return out.map((line) => `${line}\n`).join('');
}
