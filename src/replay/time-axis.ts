/**
 * The report's time axis: 24-hour UTC times (a trace timed in seconds from its start reads as
 * offsets from 00:00:00), seconds only while ticks are less than a minute apart, and steps that
 * people count in (1, 5, 15, 30 s; 1, 5, 15, 30 min; hours; days). Both are inlined into the
 * report's page as they are, so the function uses nothing from outside itself.
 */

/** Tick steps in seconds; uPlot picks the smallest that keeps labels its `space` apart. */
export const TIME_INCREMENTS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800];

/** Labels for ticks at `splits` (seconds since the epoch), `step` seconds apart. */
export function timeTickLabels(splits: readonly number[], step: number): string[] {
  return splits.map((s) => {
    const iso = new Date(s * 1000).toISOString();
    if (step >= 86_400) return iso.slice(0, 10);
    return step < 60 ? iso.slice(11, 19) : iso.slice(11, 16);
  });
}
