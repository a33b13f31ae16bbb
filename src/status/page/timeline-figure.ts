/**
 * A timeline on the status page: its caption, the element the page's script draws the chart
 * into, and the window's events as a list under it, each at its time (the chart marks them).
 */
import { clockTime } from '../format.js';
import { esc } from './html.js';
import type { ChartSpec } from './timeline.js';

/** Events the list under a chart shows, the newest. */
const LISTED_EVENTS = 12;

export function timelineFigure(chart: ChartSpec, now: number): string {
  if (chart.unavailable !== undefined) {
    return `<figure class="timeline"><figcaption>${esc(chart.title)}</figcaption><p class="warn" data-field="timeline">timeline unavailable: ${esc(chart.unavailable)}; the next refresh tries again</p></figure>`;
  }
  const dropped = chart.droppedPoints ? ` (the newest ${chart.data[0]!.length} points; ${chart.droppedPoints} earlier ones left out)` : '';
  const events = chart.events.slice(-LISTED_EVENTS).reverse();
  const list = events.length
    ? `<ol class="events" aria-label="events, newest first">${events
        .map((e) => `<li class="event event-${esc(e.kind)}" data-at="${e.at * 1000}"><time>${esc(clockTime(new Date(e.at * 1000).toISOString(), now))}</time> ${esc(e.text)}</li>`)
        .join('')}</ol>`
    : '';
  return `<figure class="timeline"><figcaption>${esc(chart.title)}${esc(dropped)}</figcaption><div class="chart" id="${esc(chart.id)}" data-history-points="${chart.historyPoints}" data-events="${chart.events.length}"></div>${list}</figure>`;
}
