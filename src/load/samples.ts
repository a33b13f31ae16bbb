/**
 * Load samples of one target and the windows they are averaged over.
 *
 * `http` and `queue` sources add a sample on every reconcile; a gap in the window is a gap in
 * the data, never a zero, so a source that stops answering leaves the desired scale unknown
 * instead of letting it fall. A `push` source is a gauge: its last value holds until the next
 * one, so when no push falls in a window the newest push (however old) stands for it.
 */

export interface Sample {
  /** Epoch ms. */
  at: number;
  value: number;
}

/** Enough for one sample a second over a ten-minute window; older extras are dropped first. */
const MAX_SAMPLES = 600;

/** Samples in the window (now − windowMs, now]. */
function samplesInWindow(samples: readonly Sample[], now: number, windowMs: number): Sample[] {
  return samples.filter((s) => s.at > now - windowMs && s.at <= now);
}

/**
 * The average over the window, or undefined when the window holds no sample. With
 * `holdLatest` (a gauge) an empty window reads as the newest sample before it.
 */
export function windowAverage(
  samples: readonly Sample[],
  now: number,
  windowMs: number,
  holdLatest: boolean,
): number | undefined {
  const inWindow = samplesInWindow(samples, now, windowMs);
  if (inWindow.length > 0) return inWindow.reduce((sum, s) => sum + s.value, 0) / inWindow.length;
  if (!holdLatest) return undefined;
  return latestSample(samples.filter((s) => s.at <= now))?.value;
}

function latestSample(samples: readonly Sample[]): Sample | undefined {
  let latest: Sample | undefined;
  for (const s of samples) if (!latest || s.at >= latest.at) latest = s;
  return latest;
}

/**
 * What the desired scale reads of a target's load: the average over the last `windowMs`
 * before `now`, or undefined when the window holds no sample. An interface so that callers
 * other than the reconcile (a replay over a ring buffer, a table of cases) can pass their own.
 */
export interface SampleWindow {
  average(windowMs: number, now: number): number | undefined;
}

/** The window over stored samples; a gauge (`holdLatest`) reads its newest value when empty. */
export function sampleWindow(samples: readonly Sample[], holdLatest: boolean): SampleWindow {
  return { average: (windowMs, now) => windowAverage(samples, now, windowMs, holdLatest) };
}

/**
 * Adds a sample. A gauge value equal to the gauge's current one is no new sample: the gauge
 * did not move, and a reconcile message delivered twice counts once.
 */
export function addSample(samples: readonly Sample[], sample: Sample, gauge: boolean): Sample[] {
  if (gauge && latestSample(samples)?.value === sample.value) return [...samples];
  return [...samples, sample].sort((a, b) => a.at - b.at);
}

/**
 * Keeps what a window may still read: samples newer than `keepMs`, plus the newest one (which
 * a gauge holds), at most `maxCount`, newest kept.
 */
export function retainSamples(samples: readonly Sample[], now: number, keepMs: number, maxCount = MAX_SAMPLES): Sample[] {
  const sorted = [...samples].sort((a, b) => a.at - b.at);
  const newest = sorted.at(-1);
  const kept = sorted.filter((s) => s.at > now - keepMs || s === newest);
  return kept.slice(Math.max(0, kept.length - maxCount));
}

/** Table Storage holds no arrays: samples are stored as compact JSON `[[at, value], …]`. */
export function encodeSamples(samples: readonly Sample[]): string {
  return JSON.stringify(samples.map((s) => [s.at, s.value]));
}

/** The inverse of encodeSamples; anything unreadable is dropped rather than trusted. */
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
    .filter((p): p is [number, number] => Array.isArray(p) && p.length === 2 && p.every((n) => typeof n === 'number' && Number.isFinite(n)))
    .map(([at, value]) => ({ at, value }));
}
