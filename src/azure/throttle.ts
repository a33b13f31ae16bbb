/**
 * Is an error ARM's "too many requests", and how long did it ask us to wait?
 *
 * | error                                  | throttled | retry after              |
 * | -------------------------------------- | --------- | ------------------------ |
 * | none, or not an HTTP error             | no        | 0                        |
 * | HTTP error other than 429              | no        | 0                        |
 * | 429 without response / Retry-After     | yes       | 0                        |
 * | 429 with `Retry-After: <seconds>`      | yes       | seconds                  |
 * | 429 with `Retry-After: <HTTP date>`    | yes       | date − now (0 if past)   |
 * | 429 with anything else                 | yes       | 0                        |
 *
 * A retry after longer than 30 min is 30 min (capRetryAfter), with `askedMs` keeping what was asked.
 */
import { capRetryAfter, RateLimitedError, type CappedRetryAfter } from '../errors/rate-limited.js';

export interface Throttle extends CappedRetryAfter {
  throttled: boolean;
}

/** The shape of `RestError` that matters here (kept structural: the SDK class is not ours). */
interface HttpErrorLike {
  statusCode?: unknown;
  response?: { headers?: { get(name: string): string | undefined } };
}

export function throttleOf(error: unknown, now: number): Throttle {
  if (error instanceof RateLimitedError) {
    return { throttled: true, retryAfterMs: error.retryAfterMs, ...(error.askedMs !== undefined ? { askedMs: error.askedMs } : {}) };
  }
  if (typeof error !== 'object' || error === null) return { throttled: false, retryAfterMs: 0 };
  const httpError = error as HttpErrorLike;
  if (httpError.statusCode !== 429) return { throttled: false, retryAfterMs: 0 };
  const header = httpError.response?.headers?.get('retry-after');
  return { throttled: true, ...capRetryAfter(parseRetryAfter(header, now)) };
}

/** Milliseconds to wait from a Retry-After value, as asked (uncapped); 0 when absent, past or unparseable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number {
  const text = value?.trim();
  if (!text) return 0;
  if (/^[+-]?\d+$/.test(text)) return Math.max(0, Number(text) * 1000);
  const at = parseHttpDate(text);
  return at === undefined ? 0 : Math.max(0, at - now);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

// The three forms HTTP allows (RFC 9110 §5.6.7), all in UTC.
const IMF_FIXDATE = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^[A-Za-z]+, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** Epoch ms of an HTTP date, or `undefined`. */
export function parseHttpDate(text: string): number | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m) return utc(m[3], m[2], m[1], m[4], m[5], m[6]);
  m = RFC850_DATE.exec(text);
  if (m) {
    // Two-digit years: RFC 9110 reads them as the nearest past-or-near-future century; 19xx for ≥ 70.
    const yy = Number(m[3]);
    return utc(String(yy >= 70 ? 1900 + yy : 2000 + yy), m[2], m[1], m[4], m[5], m[6]);
  }
  m = ASCTIME_DATE.exec(text);
  if (m) return utc(m[6], m[1], m[2], m[3], m[4], m[5]);
  return undefined;
}

function utc(
  year: string | undefined,
  monthName: string | undefined,
  day: string | undefined,
  hours: string | undefined,
  minutes: string | undefined,
  seconds: string | undefined,
): number | undefined {
  const month = MONTHS.indexOf(monthName?.toLowerCase() ?? '');
  const fields = [year, day, hours, minutes, seconds].map((f) => Number(f?.trim()));
  const [y, d, h, min, s] = fields as [number, number, number, number, number];
  if (month < 0 || fields.some((f) => !Number.isInteger(f))) return undefined;
  if (d < 1 || d > 31 || h > 23 || min > 59 || s > 60) return undefined;
  return Date.UTC(y, month, d, h, min, s);
}
