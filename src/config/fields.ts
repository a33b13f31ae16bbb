/**
 * Field types the configuration's schemas share (schema.ts, policy-schema.ts): durations and
 * rates parsed once into plain numbers, bounded counts, names. Each carries its error message.
 */
import { z } from 'zod';
import { parseDuration } from './duration.js';
import { parseRate } from './rate.js';

/** A string field parsed once by `parse`, whose error message becomes the field's problem. */
export const parsedString = <T>(expected: string, parse: (text: string) => T) =>
  z.string({ error: expected }).transform((text, ctx) => {
    try {
      return parse(text);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });

/**
 * The longest duration any setting may have: beyond it a value is a typo, and timers past
 * setTimeout's range (24.8 days) would fire at once instead of never.
 */
export const MAX_DURATION_MS = 24 * 3_600_000;

export const boundedMs = (text: string, ms: number, positive: boolean) => {
  if (ms < 0 || (positive && ms === 0)) throw new Error(`expected a duration ${positive ? '>' : '≥'} 0, got "${text}"`);
  if (ms > MAX_DURATION_MS) throw new Error(`expected a duration of at most 24h, got "${text}"`);
  return ms;
};

export const duration = (fallback: string, { positive = false } = {}) =>
  parsedString('expected a duration such as "90s", "5m" or "1h30m"', (text) => boundedMs(text, parseDuration(text), positive)).prefault(fallback);

export const rate = (fallback: string) =>
  parsedString('expected a rate "INTERVAL,BURST" such as "5s,1"', (text) => {
    const parsed = parseRate(text);
    if (parsed.intervalMs > MAX_DURATION_MS) throw new Error(`invalid duration in ${JSON.stringify(text)}: at most 24h`);
    return parsed;
  }).prefault(fallback);

export const count = (min: number, max: number) =>
  z
    .number({ error: 'expected a number' })
    .int({ error: 'expected a whole number' })
    .min(min, { error: `expected a number ≥ ${min}` })
    .max(max, { error: `expected a number ≤ ${max}` });

export const nonEmpty = z.string({ error: 'expected a string' }).min(1, { error: 'must not be empty' });

export const targetPerReplica = z
  .number({ error: 'expected a number' })
  .positive({ error: 'expected a number > 0' })
  .max(1e12, { error: 'expected a number ≤ 1e12' });

/** A duration whose absence means something of its own (a default computed from other fields). */
export const optionalDuration = z
  .unknown()
  .transform((value, ctx) => {
    const parsed = duration('0s').safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  })
  .optional();

