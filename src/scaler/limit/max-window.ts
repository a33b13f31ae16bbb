/**
 * Knative's maximum over a sliding window of buckets (`aggregation/max`): the largest value
 * recorded in the last `buckets` bucket indexes. It is kept as the descending run of values that
 * can still become the maximum, so it stays short: a new value drops the older ones it is at
 * least as large as, and a value leaves once its index is `buckets` behind the newest.
 */
export interface MaxEntry {
  index: number;
  value: number;
}

export type MaxWindow = readonly MaxEntry[];

export function recordMax(window: MaxWindow, buckets: number, index: number, value: number): MaxEntry[] {
  const kept = window.filter((e) => index - e.index < buckets);
  while (kept.length > 0 && kept[kept.length - 1]!.value <= value) kept.pop();
  return [...kept, { index, value }];
}

/** The maximum in the window as of the newest record (0 when empty). */
export function currentMax(window: MaxWindow): number {
  return window[0]?.value ?? 0;
}

/** Knative's TimeWindow: ⌈duration ÷ granularity⌉ buckets, indexed by Unix time ÷ granularity. */
export function timeBucket(now: number, granularityMs: number): number {
  return Math.floor(now / granularityMs);
}

export function bucketsFor(durationMs: number, granularityMs: number): number {
  return Math.ceil(durationMs / granularityMs);
}
