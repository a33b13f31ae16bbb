/**
 * The budget of capacity writes to one scale set. The Compute API allows about four updates
 * of a scale set a minute; Drover stays within that over any sliding minute, and a change it
 * cannot write yet is left for a reconcile at the moment the oldest write leaves the minute,
 * which then writes whatever capacity is wanted by then (changes coalesce).
 */

const SCALE_SET_WRITES_PER_MINUTE = 4;
const MINUTE_MS = 60_000;

export type WriteBudget = { ok: true } | { ok: false; retryAt: number };

export function checkWriteBudget(writes: readonly number[], now: number, max = SCALE_SET_WRITES_PER_MINUTE, windowMs = MINUTE_MS): WriteBudget {
  const recent = writes.filter((at) => now - at < windowMs).sort((a, b) => a - b);
  if (recent.length < max) return { ok: true };
  return { ok: false, retryAt: recent[recent.length - max]! + windowMs };
}

/** The write log after a write at `now`, pruned to the window. */
export function recordWrite(writes: readonly number[], now: number, windowMs = MINUTE_MS): number[] {
  return [...writes.filter((at) => now - at < windowMs), now].sort((a, b) => a - b);
}

export function encodeWrites(writes: readonly number[]): string {
  return writes.join(',');
}

export function decodeWrites(text: string | undefined): number[] {
  if (!text) return [];
  return text.split(',').map(Number).filter(Number.isFinite);
}
