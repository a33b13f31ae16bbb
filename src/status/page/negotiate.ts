/**
 * HTML or JSON for a `status` request: `?format=json` (or `html`) decides; otherwise a browser,
 * whose Accept header names text/html, gets the page and everything else (curl, scripts) JSON.
 */
export type StatusFormat = 'html' | 'json';

export function statusFormat(accept: string | null, format: string | null): StatusFormat {
  if (format === 'json' || format === 'html') return format;
  const types = (accept ?? '').split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  return types.includes('text/html') ? 'html' : 'json';
}

/** The page's reload period from `?refresh=` in seconds (0 = never), 15 s by default, at least 2 s. */
export function refreshSeconds(value: string | null): number {
  if (value === null || value.trim() === '') return 15;
  const n = Math.floor(Number(value));
  if (!Number.isFinite(n)) return 15;
  return n <= 0 ? 0 : Math.min(3600, Math.max(2, n));
}

/** A query parameter the status function refuses (400), and why, in words naming it. */
export interface QueryProblem {
  parameter: string;
  message: string;
}

const WHOLE_NUMBER = /^\d+$/;
/** The longest `?match=` text (an object name is shorter). */
const MAX_FILTER_CHARS = 100;

/**
 * The first query parameter whose value cannot mean anything (`?format=xml`, `?refresh=abc`),
 * so that a typo is answered as one instead of with a default the caller did not ask for.
 */
export function queryProblem(query: { get(name: string): string | null }): QueryProblem | undefined {
  const checks: [string, (v: string) => boolean, string][] = [
    ['format', (v) => v === 'json' || v === 'html', '"json" or "html"'],
    ['refresh', (v) => WHOLE_NUMBER.test(v), 'a whole number of seconds (0: never reload)'],
    ['decisions', (v) => WHOLE_NUMBER.test(v), 'a whole number of decisions (at most 500 are shown)'],
    ['match', (v) => v.length <= MAX_FILTER_CHARS, `a text of at most ${MAX_FILTER_CHARS} characters`],
    ['object', (v) => v.length <= MAX_FILTER_CHARS * 2, `an object key (pool/NAME or target/NAME) of at most ${MAX_FILTER_CHARS * 2} characters`],
  ];
  for (const [parameter, valid, expected] of checks) {
    const value = query.get(parameter);
    if (value !== null && !valid(value)) return { parameter, message: `${parameter}: expected ${expected}, got ${JSON.stringify(value.slice(0, 40))}` };
  }
  return undefined;
}
