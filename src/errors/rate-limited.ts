/**
 * The one "not now, come back later" error, whoever said it: ARM's 429, the API server's 429,
 * or one of Drover's own token buckets whose next token is further away than a pass may wait.
 * `source` says which; `retryAfterMs` says when to come back (0 when nobody said).
 *
 * No server decides how long Drover stands still: a Retry-After past MAX_RETRY_AFTER_MS (30 min)
 * is honoured for 30 min only, and the error (its message lands in status as `lastError`) says
 * that the server asked for longer. A year's Retry-After would otherwise freeze a pool's cache
 * for a year, and a VM removed at ARM would never be replaced.
 */
import { MAX_RETRY_AFTER_MS } from '../limits.js';

export type RateLimitSource = 'arm' | 'kubernetes' | 'limiter';

export class RateLimitedError extends Error {
  override name = 'RateLimitedError';
  constructor(
    readonly source: RateLimitSource,
    /** What was refused: the ARM operation, the target, or the limiter's name. */
    readonly subject: string,
    /** From Retry-After or the bucket; 0 when none was given (or nothing parseable). Capped: see `askedMs`. */
    asked: number,
    options?: ErrorOptions,
  ) {
    const capped = capRetryAfter(asked);
    super(`${PREFIX[source]} ${subject}; retry after ${retryAfterText(capped.retryAfterMs)}${cappedNote(capped)}`, options);
    this.retryAfterMs = capped.retryAfterMs;
    if (capped.askedMs !== undefined) this.askedMs = capped.askedMs;
  }

  /** How long to stay away: what was asked, at most MAX_RETRY_AFTER_MS. */
  readonly retryAfterMs: number;
  /** What the server asked for, when that was longer than Drover waits. */
  readonly askedMs?: number;
}

export interface CappedRetryAfter {
  retryAfterMs: number;
  /** Set when the wait asked for was longer than MAX_RETRY_AFTER_MS. */
  askedMs?: number;
}

/** A wait asked for, within 0..MAX_RETRY_AFTER_MS (NaN is none). */
export function capRetryAfter(askedMs: number): CappedRetryAfter {
  if (!(askedMs > 0)) return { retryAfterMs: 0 };
  return askedMs > MAX_RETRY_AFTER_MS ? { retryAfterMs: MAX_RETRY_AFTER_MS, askedMs } : { retryAfterMs: askedMs };
}

function cappedNote({ askedMs }: CappedRetryAfter): string {
  return askedMs === undefined ? '' : ` (it asked for ${retryAfterText(askedMs)}; Drover waits at most ${MAX_RETRY_AFTER_MS / 60_000} min)`;
}

const PREFIX: Record<RateLimitSource, string> = {
  arm: 'ARM throttled',
  kubernetes: 'the Kubernetes API server throttled',
  limiter: 'no token yet from limiter',
};

function retryAfterText(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.ceil(ms / 1000)} s`;
}

/** A token bucket whose rate can never grant a token: burst 0 with a finite rate (a configuration problem). */
export class LimiterBurstError extends Error {
  override name = 'LimiterBurstError';
  constructor(
    readonly burst: number,
    /** The shared limiter's name; absent for an in-process bucket. */
    readonly limiter?: string,
  ) {
    super(limiter === undefined ? `rate: Wait(n=1) exceeds limiter's burst ${burst}` : `limiter ${limiter}: a burst of ${burst} never allows an action`);
  }
}
