/**
 * Time as an input. Decision code takes `now` (epoch milliseconds) as a plain argument;
 * shells that must wait take a Clock so tests can drive time by hand.
 */
export interface Clock {
  /** Current time, epoch milliseconds. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** setTimeout fires at once for delays beyond this (a signed 32-bit count of ms, ~24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const step = Math.min(Math.max(0, ms), MAX_TIMEOUT_MS);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        if (ms > step) systemClock.sleep(ms - step, signal).then(resolve, reject);
        else resolve();
      }, step);
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** Waits `ms`, or less when `signal` aborts first; never rejects (for loops that check the signal themselves). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return systemClock.sleep(ms, signal).catch(() => undefined);
}

export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('operation aborted');
}

/**
 * A clock that only moves when told to. `sleep` resolves once `advance` has moved time past
 * the sleeper's deadline, so a test can step through waits without real delays.
 */
export class ManualClock implements Clock {
  private sleepers: { until: number; resolve: () => void }[] = [];

  constructor(private current = Date.UTC(2026, 10, 30, 10, 0, 0)) {}

  now(): number {
    return this.current;
  }

  set(ms: number): void {
    this.current = ms;
    this.wake();
  }

  advance(ms: number): void {
    this.set(this.current + ms);
  }

  /** Number of callers currently waiting in `sleep`. */
  get waiting(): number {
    return this.sleepers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const sleeper = {
        until: this.current + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(sleeper);
    });
  }

  private wake(): void {
    const due = this.sleepers.filter((s) => s.until <= this.current);
    this.sleepers = this.sleepers.filter((s) => s.until > this.current);
    for (const s of due) s.resolve();
  }
}
