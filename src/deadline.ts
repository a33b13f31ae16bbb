/**
 * Deadlines: every call Drover makes ends, by an answer, a timeout or an abort. A timeout and
 * an abort are failures of the object being reconciled, never of the pass: they are transient
 * (the next pass or a queued reconcile tries again) and name what was cut short.
 */
import { formatDuration } from './config/duration.js';

/** A call that got no (complete) answer within its timeout. */
export class TimeoutError extends Error {
  override name = 'TimeoutError';
  constructor(
    /** What was called, e.g. "ARM GET …/virtualMachines" or "read the scale of Deployment default/web". */
    readonly call: string,
    readonly timeoutMs: number,
  ) {
    super(`${call} timed out after ${formatDuration(timeoutMs)}`);
  }
}

/** Work stopped from outside: the pass ran out of time, the lease was lost, the host is stopping. */
export class AbortedError extends Error {
  override name = 'AbortedError';
  constructor(readonly why: string, options?: ErrorOptions) {
    super(why, options);
  }
}

/** The reason `signal` aborted, as an Error (AbortSignal.timeout's DOMException included). */
export function reasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new AbortedError(String(reason ?? 'operation aborted'));
}

export interface CallDeadline {
  timeoutMs: number;
  /** Aborts when the caller's signal aborts or the timeout passes, whichever is first. */
  signal: AbortSignal;
  /** True when it was the timeout, not the caller, that aborted. */
  timedOut(): boolean;
}

/** One call's signal: the caller's (if any) and a timeout of `timeoutMs`. */
export function callDeadline(timeoutMs: number, parent?: AbortSignal): CallDeadline {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = parent ? AbortSignal.any([parent, timeout]) : timeout;
  return { timeoutMs, signal, timedOut: () => timeout.aborted && !parent?.aborted };
}

/**
 * A child of `parent`: aborted with the parent's reason, or on its own through `abort(reason)`.
 * `dispose()` stops listening to the parent (long-lived parents such as the shutdown signal
 * would otherwise collect one listener per object reconciled).
 */
export function scopedAbort(parent?: AbortSignal): { signal: AbortSignal; abort(reason: Error): void; dispose(): void } {
  const ac = new AbortController();
  const follow = () => ac.abort(parent ? reasonOf(parent) : undefined);
  if (parent?.aborted) follow();
  else parent?.addEventListener('abort', follow, { once: true });
  return {
    signal: ac.signal,
    abort: (reason) => ac.abort(reason),
    dispose: () => parent?.removeEventListener('abort', follow),
  };
}
