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
  const kept = entries.length > MAX_HISTORY ? withoutDominated(entries) : entries;
  return mergeOldest(kept, (a, b) => ({ at: Math.max(a.at, b.at), low: Math.min(a.low, b.low), high: Math.max(a.high, b.high) }));
}

/**
 * Past the cap, first the entries a newer one covers: one saying at most as low and at least as
 * high is in every window the older one is in, so dropping the older changes no decision. Only
 * what is left is merged; merging alone would carry an old high forward to the newer entry's
 * time on every decision, so a target reconciled more often than the cap per window (every 2 s
 * against a 2-minute window) would never leave its old recommendation.
 */
function withoutDominated(entries: readonly Recommendation[]): Recommendation[] {
  const covers = (b: Recommendation, a: Recommendation) => b.low <= a.low && b.high >= a.high;
  return entries.filter((a, i) => !entries.some((b, j) => j !== i && (b.at > a.at || (b.at === a.at && j > i)) && covers(b, a)));
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
