/**
 * Ceilings on numbers and texts that come from outside Drover: a load answer, a pushed value,
 * a scale nobody bounded, a server's Retry-After, an error or extension message. Each is a
 * number an operator can look up (docs/architecture.md, "Hardening"), and each is applied where
 * the value enters, so that a hostile or broken answer can skew one decision but never size a
 * workload to 1e15 replicas, freeze a cache for a year or make a row too large to store.
 */

/** The largest load sample kept; a larger reading or push counts as this (exact in a double, and a window of them sums without overflow). */
export const MAX_LOAD = 1e15;

/** The most replicas or instances Drover ever asks for: also what `maxScale: 0` ("unbounded") means. */
export const MAX_REPLICAS = 10_000;

/** The longest Retry-After honoured; a server asking for longer is asked again after this. */
export const MAX_RETRY_AFTER_MS = 30 * 60_000;

/** The longest error or extension message stored, in UTF-8 bytes (100 rows of a few of these stay far below a 4 MiB batch). */
export const MAX_STORED_TEXT_BYTES = 1024;

/** A replica or instance count read from outside, within 0..MAX_REPLICAS (anything not a number > 0, NaN and −0 included, is 0). */
export function clampReplicas(n: number): number {
  if (!(n > 0)) return 0;
  return Math.min(MAX_REPLICAS, n);
}
