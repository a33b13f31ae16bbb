import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../src/errors/rate-limited.js';
import { parseHttpDate, parseRetryAfter, throttleOf } from '../../src/azure/throttle.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);

/** The parts of the SDK's RestError that throttle detection reads. */
function restError(statusCode: number, headers?: Record<string, string>) {
  return Object.assign(new Error(`status ${statusCode}`), {
    name: 'RestError',
    statusCode,
    response: headers && { headers: { get: (name: string) => headers[name.toLowerCase()] } },
  });
}

describe('throttle detection (upstream TestIsAzureRequestsThrottled)', () => {
  it.each([
    { name: 'no error is not throttled', error: null, want: { throttled: false, retryAfterMs: 0 } },
    { name: 'a plain error is not throttled', error: new Error('some random error'), want: { throttled: false, retryAfterMs: 0 } },
    { name: 'HTTP 400 is not throttled', error: restError(400), want: { throttled: false, retryAfterMs: 0 } },
    { name: 'HTTP 429 without a response is throttled, no delay', error: restError(429), want: { throttled: true, retryAfterMs: 0 } },
    { name: 'HTTP 429 with Retry-After: 120 is throttled for 120 s', error: restError(429, { 'retry-after': '120' }), want: { throttled: true, retryAfterMs: 120_000 } },
    { name: 'HTTP 429 without Retry-After is throttled, no delay', error: restError(429, {}), want: { throttled: true, retryAfterMs: 0 } },
    { name: 'a RateLimitedError keeps its delay', error: new RateLimitedError('arm', 'list', 30_000), want: { throttled: true, retryAfterMs: 30_000 } },
    { name: 'a string thrown is not throttled', error: 'boom', want: { throttled: false, retryAfterMs: 0 } },
  ])('$name', ({ error, want }) => {
    expect(throttleOf(error, NOW)).toEqual(want);
  });
});

describe('Retry-After is honoured for 30 min at most', () => {
  const YEAR_S = 31_536_000;
  it.each([
    { name: 'a year in seconds', headers: { 'retry-after': String(YEAR_S) }, asked: YEAR_S * 1000 },
    { name: 'an HTTP date in 9999', headers: { 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' }, asked: Date.UTC(9999, 11, 31, 23, 59, 59) - NOW },
  ])('$name: 30 min, and what was asked is kept', ({ headers, asked }) => {
    expect(throttleOf(restError(429, headers), NOW)).toEqual({ throttled: true, retryAfterMs: 30 * 60_000, askedMs: asked });
  });

  it('says so in the error that status shows', () => {
    const error = new RateLimitedError('arm', 'listVms', YEAR_S * 1000);
    expect(error.retryAfterMs).toBe(1_800_000);
    expect(error.askedMs).toBe(YEAR_S * 1000);
    expect(error.message).toBe('ARM throttled listVms; retry after 1800 s (it asked for 31536000 s; Drover waits at most 30 min)');
    expect(throttleOf(error, NOW)).toEqual({ throttled: true, retryAfterMs: 1_800_000, askedMs: YEAR_S * 1000 });
  });

  it('keeps a wait of exactly 30 min, and reads NaN as none', () => {
    expect(new RateLimitedError('kubernetes', 'web', 1_800_000)).toMatchObject({ retryAfterMs: 1_800_000, askedMs: undefined });
    expect(new RateLimitedError('kubernetes', 'web', Number.NaN).retryAfterMs).toBe(0);
  });
});

describe('Retry-After parsing', () => {
  it.each([
    { name: 'whole seconds', value: '120', want: 120_000 },
    { name: 'seconds with spaces around', value: ' 7 ', want: 7_000 },
    { name: 'zero seconds', value: '0', want: 0 },
    { name: 'negative seconds count as none', value: '-5', want: 0 },
    { name: 'an IMF date 90 s ahead', value: 'Mon, 30 Nov 2026 10:01:30 GMT', want: 90_000 },
    { name: 'an RFC 850 date 60 s ahead', value: 'Monday, 30-Nov-26 10:01:00 GMT', want: 60_000 },
    { name: 'an asctime date 30 s ahead', value: 'Mon Nov 30 10:00:30 2026', want: 30_000 },
    { name: 'a date in the past gives 0', value: 'Mon, 30 Nov 2026 09:59:00 GMT', want: 0 },
    { name: 'fractional seconds are unparseable', value: '1.5', want: 0 },
    { name: 'garbage gives 0', value: 'soon', want: 0 },
    { name: 'an ISO date is not an HTTP date', value: '2026-11-30T10:05:00Z', want: 0 },
    { name: 'empty gives 0', value: '', want: 0 },
    { name: 'absent gives 0', value: undefined, want: 0 },
  ])('$name → $want ms', ({ value, want }) => {
    expect(parseRetryAfter(value, NOW)).toBe(want);
  });

  it('rejects impossible dates', () => {
    expect(parseHttpDate('Mon, 30 Foo 2026 10:01:30 GMT')).toBeUndefined();
    expect(parseHttpDate('Mon, 30 Nov 2026 25:01:30 GMT')).toBeUndefined();
  });
});
