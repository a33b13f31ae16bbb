/**
 * The one "not now, come back later" error, whoever said it: ARM's 429, the API server's 429,
 * or one of Drover's own token buckets whose next token is further away than a pass may wait.
 * `source` says which; `retryAfterMs` says when to come back (0 when nobody said).
 */

export type RateLimitSource = 'arm' | 'kubernetes' | 'limiter';

export class RateLimitedError extends Error {
  override name = 'RateLimitedError';
  constructor(
    readonly source: RateLimitSource,
    /** What was refused: the ARM operation, the target, or the limiter's name. */
    readonly subject: string,
    /** From Retry-After or the bucket; 0 when none was given (or nothing parseable). */
    readonly retryAfterMs: number,
    options?: ErrorOptions,
  ) {
    super(`${PREFIX[source]} ${subject}; retry after ${retryAfterText(retryAfterMs)}`, options);
  }
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
