/**
 * A token bucket living in this process only, with golang.org/x/time/rate's semantics: the bucket
 * starts full, refills one token per interval (fractionally, between calls), and a wait reserves a
 * token ahead of time, so waiters are served in order. For tests and single-process runs; the
 * shared, Table-backed buckets (src/state/limiter.ts) are the production ones.
 */
import { abortReason } from '../../../src/clock.js';
import type { Clock } from '../../../src/clock.js';
import { LimiterBurstError } from '../../../src/errors/rate-limited.js';

export interface TokenBucketRate {
  /** Milliseconds per token; 0 is an infinite rate: waits never block, whatever the burst. */
  intervalMs: number;
  /** Bucket size; 0 with a finite rate makes every wait fail. */
  burst: number;
}

export { LimiterBurstError };

export function isLimiterBurstError(err: unknown): err is LimiterBurstError {
  return err instanceof LimiterBurstError;
}

export class InProcessTokenBucket {
  private tokens: number;
  private last: number;
  /** When the latest reservation may act; lets a cancelled reservation give its token back. */
  private lastEvent: number;

  constructor(
    private readonly rate: TokenBucketRate,
    private readonly clock: Clock,
  ) {
    this.tokens = rate.burst;
    this.last = clock.now();
    this.lastEvent = this.last;
  }

  async wait(signal: AbortSignal): Promise<void> {
    const { intervalMs, burst } = this.rate;
    if (intervalMs > 0 && burst < 1) throw new LimiterBurstError(burst);
    if (signal.aborted) throw abortReason(signal);
    if (intervalMs === 0) return;

    const now = this.clock.now();
    const tokens = this.tokensAt(now) - 1;
    const waitMs = tokens < 0 ? -tokens * intervalMs : 0;
    const timeToAct = now + waitMs;
    this.tokens = tokens;
    this.last = now;
    this.lastEvent = timeToAct;
    if (waitMs === 0) return;

    try {
      await this.clock.sleep(waitMs, signal);
    } catch (err) {
      this.cancel(timeToAct);
      throw err;
    }
  }

  private tokensAt(now: number): number {
    const elapsed = Math.max(0, now - this.last);
    return Math.min(this.rate.burst, this.tokens + elapsed / this.rate.intervalMs);
  }

  /** Gives back a reservation's token, less whatever later reservations already count on. */
  private cancel(timeToAct: number): void {
    const now = this.clock.now();
    if (timeToAct < now) return;
    const restore = 1 - (this.lastEvent - timeToAct) / this.rate.intervalMs;
    if (restore <= 0) return;
    this.tokens = Math.min(this.rate.burst, this.tokensAt(now) + restore);
    this.last = now;
    if (timeToAct === this.lastEvent) {
      const previousEvent = timeToAct - this.rate.intervalMs;
      if (previousEvent >= now) this.lastEvent = previousEvent;
    }
  }
}
