/** The pool keys of sized pools (scale-in): kept apart so schema.ts merges stay small. */
import { z } from 'zod';
import { MAX_REPLICAS } from '../limits.js';
import { count, duration } from './fields.js';

/**
 * `scaleIn: { policy: newest | oldest, minAge }`: which running VMs a scale-in removes first, and
 * how old (since created) a running VM must be before it may be chosen (ms; `0s`, the default: off).
 */
export const scaleInSchema = z
  .object({ policy: z.enum(['newest', 'oldest'], { error: 'expected "newest" or "oldest"' }).default('newest'), minAge: duration('0s') })
  .strict()
  .prefault({});

/** `scaleTargetRef: { kind: Pool, name }`: the target decides how many VMs, the pool which. */
export const poolTargetRef = z.object({ kind: z.literal('Pool'), name: z.string({ error: 'expected a pool name' }).min(1, { error: 'must not be empty' }) }).strict();


/**
 * `warm: { max }`: how many VMs a scale-in deallocates (parks) instead of deleting, for a
 * scale-out to start again before it creates any. 0 (the default) keeps no buffer.
 */
export const warmSchema = z.object({ max: count(0, MAX_REPLICAS).default(0) }).strict().prefault({});
