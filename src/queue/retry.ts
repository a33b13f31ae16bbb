/**
 * How soon a reconcile message that found its object busy (another holder's lease) is sent
 * again: the reconcile queue's handler does it, and `drover replay` models it the same way.
 */
export const BUSY_RETRY_MS = 5_000;

/** The delay before a busy object is tried again: sooner when the holder's lease ends sooner. */
export function busyRetryDelay(now: number, heldUntil: number): number {
  return Math.min(BUSY_RETRY_MS, Math.max(0, heldUntil - now));
}
