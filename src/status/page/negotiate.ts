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
