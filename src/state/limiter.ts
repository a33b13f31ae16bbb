/**
 * Token buckets kept in Table Storage, so every Functions instance draws from one bucket:
 * `5s,1` allows one action per 5 s across the whole app, as `rate.NewLimiter(rate.Every(5s), 1)`
 * does inside one Go process. Waiting works like Go's `Limiter.Wait`: reserve a token (the
 * bucket may go negative), then sleep until it is due; an abort hands the token back.
 */
import { abortReason, type Clock } from '../clock.js';
import type { Rate } from '../config/rate.js';
import type { EntityTable } from './entity-table.js';
import { LimiterBurstError, RateLimitedError } from '../errors/rate-limited.js';

const PARTITION = 'limiter';

export type BucketProps = { tokens: number; updatedAt: number };

/**
 * Pure bucket arithmetic: the bucket after refilling up to `now`. Starts full. A bucket stamped
 * after `now` was written by a host whose clock is ahead (docs/architecture.md, "Time across
 * hosts"): it counts as written now, so it refills from here on instead of staying empty until
 * the reader's clock reaches that stamp (an hour's skew would starve every correct host for an hour).
 */
export function refill(bucket: BucketProps | undefined, rate: Rate, now: number): BucketProps {
  if (!bucket) return { tokens: rate.burst, updatedAt: now };
  const elapsed = Math.max(0, now - bucket.updatedAt);
  const tokens = Math.min(rate.burst, bucket.tokens + elapsed / rate.intervalMs);
  return { tokens, updatedAt: now };
}

/** How long until one token is available in `bucket` (0 when one is there now). */
export function waitFor(bucket: BucketProps, rate: Rate): number {
  return bucket.tokens >= 1 ? 0 : Math.ceil((1 - bucket.tokens) * rate.intervalMs);
}

/** How many of `wanted` tokens `bucket` gives within `maxWaitMs` (pure). */
export function tokensDue(bucket: BucketProps, rate: Rate, wanted: number, maxWaitMs: number): number {
  const due = Number.isFinite(maxWaitMs) ? Math.floor(bucket.tokens + maxWaitMs / rate.intervalMs) : wanted;
  return Math.max(0, Math.min(wanted, due));
}

export type Reservation = { ok: true; waitMs: number } | { ok: false; retryAfterMs: number };

/**
 * One token reserved from `bucket` (refilled to now) if it is due within `maxWaitMs` (pure):
 * the reservation and the bucket after it (undefined: nothing taken).
 */
export function reserveToken(bucket: BucketProps, rate: Rate, maxWaitMs: number): { reservation: Reservation; next: BucketProps | undefined } {
  const waitMs = waitFor(bucket, rate);
  if (waitMs > maxWaitMs) return { reservation: { ok: false, retryAfterMs: waitMs }, next: undefined };
  return { reservation: { ok: true, waitMs }, next: { tokens: bucket.tokens - 1, updatedAt: bucket.updatedAt } };
}

/**
 * Up to `wanted` tokens drawn from `bucket` (refilled to now) at once (pure): as many as are due
 * within `maxWaitMs`, how long until the last of them is due, and the bucket after it
 * (undefined: nothing taken).
 */
export function drawTokens(bucket: BucketProps, rate: Rate, wanted: number, maxWaitMs: number): { granted: number; waitMs: number; next: BucketProps | undefined } {
  const granted = tokensDue(bucket, rate, wanted, maxWaitMs);
  if (granted === 0) return { granted, waitMs: 0, next: undefined };
  return { granted, waitMs: Math.max(0, Math.ceil((granted - bucket.tokens) * rate.intervalMs)), next: { tokens: bucket.tokens - granted, updatedAt: bucket.updatedAt } };
}

export class SharedLimiter {
  constructor(
    private readonly table: EntityTable,
    private readonly clock: Clock,
    readonly name: string,
    readonly rate: Rate,
  ) {}

  /**
   * Takes a token if one is due within `maxWaitMs`, returning how long to wait for it. When
   * the token is further away nothing is taken and `retryAfterMs` says when to come back.
   */
  async reserve(maxWaitMs = Infinity): Promise<Reservation> {
    if (this.rate.intervalMs === 0) return { ok: true, waitMs: 0 };
    if (this.rate.burst === 0) throw new LimiterBurstError(0, this.name);
    let result: Reservation = { ok: true, waitMs: 0 };
    await this.table.update<BucketProps>(PARTITION, this.name, (row) => {
      const reserved = reserveToken(refill(row?.props, this.rate, this.clock.now()), this.rate, maxWaitMs);
      result = reserved.reservation;
      return reserved.next;
    });
    return result;
  }

  /** Returns reserved tokens that will not be used. */
  async cancel(count = 1): Promise<void> {
    await this.table.update<BucketProps>(PARTITION, this.name, (row) => {
      const bucket = refill(row?.props, this.rate, this.clock.now());
      return { tokens: Math.min(this.rate.burst, bucket.tokens + count), updatedAt: bucket.updatedAt };
    });
  }

  /**
   * Draws up to `wanted` tokens in one read-modify-write: as many as are due within `maxWaitMs`,
   * then waits for the last of them. The same rate as `wanted` single waits, one round trip; the
   * tokens not granted are left for a later pass. An abort while waiting hands them all back.
   */
  async draw(wanted: number, signal?: AbortSignal, maxWaitMs = Infinity): Promise<number> {
    if (signal?.aborted) throw abortReason(signal);
    if (wanted <= 0 || this.rate.intervalMs === 0) return Math.max(0, wanted);
    if (this.rate.burst === 0) throw new LimiterBurstError(0, this.name);
    let granted = 0;
    let waitMs = 0;
    await this.table.update<BucketProps>(PARTITION, this.name, (row) => {
      const drawn = drawTokens(refill(row?.props, this.rate, this.clock.now()), this.rate, wanted, maxWaitMs);
      ({ granted, waitMs } = drawn);
      return drawn.next;
    });
    if (waitMs === 0) return granted;
    try {
      await this.clock.sleep(waitMs, signal);
    } catch (err) {
      await this.cancel(granted).catch(() => undefined);
      throw err;
    }
    return granted;
  }

  /**
   * Waits for a token. Fails at once when the wait would outlast `maxWaitMs` (a pass must not
   * sleep past its budget: the caller re-enqueues instead), and with the abort reason when
   * `signal` fires while waiting.
   */
  async wait(signal?: AbortSignal, maxWaitMs = Infinity): Promise<void> {
    if (signal?.aborted) throw abortReason(signal);
    const r = await this.reserve(maxWaitMs);
    if (!r.ok) {
      throw new RateLimitedError('limiter', this.name, r.retryAfterMs);
    }
    if (r.waitMs === 0) return;
    try {
      await this.clock.sleep(r.waitMs, signal);
    } catch (err) {
      await this.cancel().catch(() => undefined);
      throw err;
    }
  }
}
