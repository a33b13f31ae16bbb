import { randomInt } from 'node:crypto';

/**
 * A partition's new generation (src/pool/generation.ts): a fresh random number. Only equality
 * is compared, so it does what a counter would without reading the row before each write.
 */
export function newGeneration(): number {
  return randomInt(0, 2 ** 47);
}
