/** Reads what the status page needs beyond the status view (the last hour of history) and renders it. */
import { randomBytes } from 'node:crypto';
import type { Runtime } from '../../runtime/runtime.js';
import type { HistoryRow } from '../../state/history.js';
import type { Status } from '../status.js';
import { esc } from './html.js';
import { refreshSeconds } from './negotiate.js';
import { refreshQuery, renderStatusPage } from './page.js';
import { uplotAssets } from './uplot-assets.js';

export interface StatusPage {
  html: string;
  /** For the Content-Security-Policy header: only the page's own inline elements run. */
  nonce: string;
}

export async function buildStatusPage(rt: Runtime, status: Status, query: URLSearchParams): Promise<StatusPage> {
  const now = rt.clock.now();
  const objects = [...status.pools.map((p) => `pool/${p.name}`), ...status.targets.map((t) => `target/${t.name}`)];
  const [rows, uplot] = await Promise.all([Promise.all(objects.map((o) => rt.history.read(o, now))), uplotAssets()]);
  const history = new Map<string, HistoryRow[]>(objects.map((o, i) => [o, rows[i]!]));
  const nonce = randomBytes(16).toString('base64');
  const object = query.get('object') ?? undefined;
  const html = renderStatusPage(status, {
    now,
    history,
    refresh: { query: refreshQuery(query), seconds: refreshSeconds(query.get('refresh')) },
    ...(object ? { object } : {}),
    ...(uplot ? { uplot } : {}),
    nonce,
  });
  return { html, nonce };
}

export function pageHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    // The function key is in the URL: no referrer leaks it, no frame embeds the page, and only
    // the page's own inline script and style run.
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}' 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
  };
}

/**
 * What a browser sees when the status cannot be read: no details (they may name endpoints or
 * files), only the id under which the function app's log has them.
 */
export function errorPage(errorId: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Drover status: unavailable</title></head><body><h1>Drover</h1><p>The status is unavailable; the function app log has the details under the error id <code>${esc(errorId)}</code>.</p></body></html>\n`;
}
