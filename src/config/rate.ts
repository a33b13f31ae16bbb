/**
 * Rates written "INTERVAL,BURST" (the provisioner seed's limiter flag): "5s,1" is one token
 * every 5 s from a bucket of 1 that starts full. Parsing is as strict as the flag's: exactly two
 * comma-separated parts, no whitespace, a Go duration and an unsigned 31-bit count.
 */
import { parseDuration } from './duration.js';

export interface Rate {
  /** Milliseconds per token; 0 means an infinite rate (never waits). */
  intervalMs: number;
  /** Bucket size. 0 with a finite rate means every wait fails. */
  burst: number;
}

export class RateSyntaxError extends Error {
  override name = 'RateSyntaxError';
}

const MAX_BURST = 2 ** 31 - 1;

export function parseRate(input: string): Rate {
  const parts = input.split(',');
  if (parts.length !== 2) {
    throw new RateSyntaxError(`invalid syntax ${JSON.stringify(input)}, want 'duration,count' (e.g. "5s,1")`);
  }
  const [durationText, countText] = parts as [string, string];
  let intervalMs: number;
  try {
    intervalMs = parseDuration(durationText);
  } catch (err) {
    throw new RateSyntaxError(`invalid duration in ${JSON.stringify(input)}: ${(err as Error).message}`);
  }
  if (intervalMs < 0) throw new RateSyntaxError(`invalid duration in ${JSON.stringify(input)}: must not be negative`);
  if (!/^\d+$/.test(countText) || Number(countText) > MAX_BURST) {
    throw new RateSyntaxError(`invalid refill rate in ${JSON.stringify(input)}: want a count from 0 to ${MAX_BURST}`);
  }
  return { intervalMs, burst: Number(countText) };
}
