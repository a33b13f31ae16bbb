/**
 * Load samples of one target and the windows they are averaged over.
 *
 * `http` and `queue` sources add a sample on every reconcile; a gap in the window is a gap in
 * the data, never a zero, so a source that stops answering leaves the desired scale unknown
 * instead of letting it fall. A `push` source is a gauge: its last value holds until the next
 * one, so when no push falls in a window the newest push (however old) stands for it.
 */
import { MAX_LOAD } from '../limits.js';
import { SampleWindow, type Sample } from './sample-window.js';

export type { Sample } from './sample-window.js';

/**
 * The average over the window (now − windowMs, now], or undefined when the window holds no
 * sample. With `holdLatest` (a gauge) an empty window reads as the newest sample before it.
 * A plain array (tests, stored rows) is read through a SampleWindow of its own size.
 */
export function windowAverage(
  samples: readonly Sample[] | SampleWindow,
  now: number,
  windowMs: number,
  holdLatest: boolean,
): number | undefined {
  const window = samples instanceof SampleWindow ? samples : SampleWindow.from(samples, Math.max(1, samples.length));
  return window.average(now, windowMs, holdLatest);
}

/** Table Storage holds no arrays: samples are stored as compact JSON `[[at, value], …]`. */
export function encodeSamples(samples: readonly Sample[]): string {
  return JSON.stringify(samples.map((s) => [s.at, s.value]));
}

/** The inverse of encodeSamples; anything unreadable is dropped rather than trusted, a value past MAX_LOAD lowered to it. */
export function decodeSamples(text: string | undefined): Sample[] {
  if (!text) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter((p): p is [number, number] => Array.isArray(p) && p.length === 2 && p.every((n) => typeof n === 'number' && Number.isFinite(n)) && p[1] >= 0)
    .map(([at, value]) => ({ at, value: Math.min(value, MAX_LOAD) }));
}
