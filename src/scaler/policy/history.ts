/**
 * The histories HPA's behaviour keeps, bounded for a table row. HPA stores one recommendation
 * per reconcile and reuses expired slots; at Drover's 2-second poll a one-hour window would
 * still be 1,800 entries. Past the cap the two oldest entries are merged into one that keeps
 * both sides of what they said (the lower for the up window's minimum, the higher for the down
 * window's maximum) at the newer time, so a merged history only ever holds a decision longer.
 */
export interface Recommendation {
  at: number;
  /** What the up window's minimum reads (the recommendation, or the lowest of merged ones). */
  low: number;
  /** What the down window's maximum reads. */
  high: number;
}

export interface ScaleEvent {
  at: number;
  /** Replicas added (up events) or removed (down events). */
  change: number;
}

export const MAX_HISTORY = 48;

export function boundedRecommendations(entries: readonly Recommendation[]): Recommendation[] {
  return mergeOldest(entries, (a, b) => ({ at: Math.max(a.at, b.at), low: Math.min(a.low, b.low), high: Math.max(a.high, b.high) }));
}

/** Merged events count together for as long as the newer one would. */
export function boundedEvents(entries: readonly ScaleEvent[]): ScaleEvent[] {
  return mergeOldest(entries, (a, b) => ({ at: Math.max(a.at, b.at), change: a.change + b.change }));
}

function mergeOldest<T extends { at: number }>(entries: readonly T[], merge: (a: T, b: T) => T): T[] {
  const kept = [...entries];
  while (kept.length > MAX_HISTORY) {
    const byAge = kept.map((e, i) => ({ at: e.at, i })).sort((x, y) => x.at - y.at);
    const [first, second] = [byAge[0]!.i, byAge[1]!.i];
    const merged = merge(kept[first]!, kept[second]!);
    kept[Math.min(first, second)] = merged;
    kept.splice(Math.max(first, second), 1);
  }
  return kept;
}
