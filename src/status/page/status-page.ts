/**
 * Reads what the status page needs beyond the status view (the last hour of history of the
 * objects it draws) and renders it. The reads are few (PAGE_SECTIONS objects, selection.ts), a
 * few at a time, each within a deadline of its own: one object whose history does not answer
 * costs only its own timeline, never the page.
 */
import { randomBytes } from 'node:crypto';
import { callDeadline } from '../../deadline.js';
import type { Clock } from '../../clock.js';
import type { HistoryStore } from '../../state/history-store.js';
import type { HistoryRow } from '../../state/history.js';
import { HISTORY_PAGE_WINDOW_MS } from '../../state/history.js';
import { mapBounded } from '../bounded.js';
import { formatDuration } from '../format.js';
import type { Status } from '../status.js';
import { esc } from './html.js';
import { refreshSeconds } from './negotiate.js';
import { refreshQuery, renderStatusPage } from './page.js';
import { selectObjects, type PageFilter } from './selection.js';
import { uplotAssets } from './uplot-assets.js';

/** History reads in flight at once: a 1,000-object fleet never puts a query per object on the service at once. */
export const HISTORY_READ_CONCURRENCY = 6;
/** One object's history read, all its queries: past it, that object's timeline says so and the page is served. */
export const HISTORY_READ_TIMEOUT_MS = 4_000;
/** All of a page's history reads: a read not started by then is not made, and none runs past it. */
export const HISTORY_BUDGET_MS = 6_000;

export interface StatusPage {
  html: string;
  /** For the Content-Security-Policy header: only the page's own inline elements run. */
  nonce: string;
}

/** Reads an object's history window: as the runtime's history store does, with a signal. */
export type HistoryReader = (object: string, now: number, signal: AbortSignal) => Promise<HistoryRow[]>;

export type HistoryReads = { rows: Map<string, HistoryRow[]>; unavailable: Map<string, string> };

/** What the page reads besides the status: the objects' history, on the clock. */
export interface StatusPageDeps {
  readonly clock: Clock;
  readonly history: Pick<HistoryStore, 'read'>;
}

export async function buildStatusPage(deps: StatusPageDeps, status: Status, query: URLSearchParams, options: { timeoutMs?: number; readHistory?: HistoryReader } = {}): Promise<StatusPage> {
  const now = deps.clock.now();
  const filter = pageFilter(query);
  const selection = selectObjects(status, filter);
  const read = options.readHistory ?? ((object, at, signal) => deps.history.read(object, at, HISTORY_PAGE_WINDOW_MS, signal));
  const [history, uplot] = await Promise.all([readHistories(read, selection.drawn, now, options.timeoutMs ?? HISTORY_READ_TIMEOUT_MS), uplotAssets()]);
  const nonce = randomBytes(16).toString('base64');
  const html = renderStatusPage(status, {
    now,
    history: history.rows,
    unavailable: history.unavailable,
    selection,
    refresh: { query: refreshQuery(query), seconds: refreshSeconds(query.get('refresh')) },
    ...filter,
    ...(uplot ? { uplot } : {}),
    nonce,
  });
  return { html, nonce };
}

/** The page's filter from its query: `object` and `match`, empty ones left out. */
export function pageFilter(query: URLSearchParams): PageFilter {
  const object = query.get('object') || undefined;
  const match = query.get('match')?.trim() || undefined;
  return { ...(object ? { object } : {}), ...(match ? { match } : {}) };
}

/**
 * Each object's history, at most HISTORY_READ_CONCURRENCY at once, each within `timeoutMs` and
 * all within `budgetMs`; a read that fails or is not made is noted, not thrown.
 */
export async function readHistories(read: HistoryReader, objects: readonly string[], now: number, timeoutMs: number, budgetMs = HISTORY_BUDGET_MS): Promise<HistoryReads> {
  const out: HistoryReads = { rows: new Map(), unavailable: new Map() };
  const until = performance.now() + budgetMs;
  await mapBounded(objects, HISTORY_READ_CONCURRENCY, async (object) => {
    const left = Math.min(timeoutMs, Math.floor(until - performance.now()));
    if (left <= 0) return void out.unavailable.set(object, `the page's ${formatDuration(budgetMs)} for reading histories ran out before its turn`);
    const deadline = callDeadline(left);
    try {
      out.rows.set(object, await untilAborted(read(object, now, deadline.signal), deadline.signal));
    } catch {
      // The details (an endpoint, a storage message) stay off the page, as on the error page.
      out.unavailable.set(object, deadline.timedOut() ? `its history did not answer within ${formatDuration(left)}` : 'its history could not be read');
    }
  });
  return out;
}

/** `work`, or a rejection once `signal` aborts: a reader that ignores its signal still ends on time. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  let stop: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(new Error('aborted'));
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  work.catch(() => undefined);
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', stop));
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
