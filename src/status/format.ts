/** Durations and times as the status page shows them; pure, `now` passed in. */

/** `4m12s`, `38s`, `2h05m`, `3d04h`; `0s` for anything under a second. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
}

/** `38s ago` or `in 4m12s`, relative to `now`. */
export function relative(iso: string, now: number): string {
  const ms = Date.parse(iso) - now;
  return ms > 0 ? `in ${formatDuration(ms)}` : `${formatDuration(-ms)} ago`;
}

/** `10:05:03` (UTC) for times within a day of `now`, else the date too. */
export function clockTime(iso: string, now: number): string {
  const ms = Date.parse(iso);
  const text = new Date(ms).toISOString();
  return Math.abs(now - ms) < 86_400_000 ? `${text.slice(11, 19)}Z` : `${text.slice(0, 10)} ${text.slice(11, 19)}Z`;
}
