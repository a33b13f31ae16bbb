/**
 * What counts as a load value from outside (an http answer, `drover enqueue --load`): decimal
 * notation only, with an optional fraction and exponent (`12`, `0.5`, `3e2`). `Number()` would
 * also take `0x10`, `0b111`, `0o7`, `Infinity` and the empty string; an endpoint answering those
 * is broken, and guessing what it meant would scale on a misreading. A value past MAX_LOAD is
 * kept as MAX_LOAD (clampLoad), so one absurd answer cannot size a target beyond reason.
 */
import { MAX_LOAD } from '../limits.js';

const DECIMAL = /^\+?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The number a decimal text writes, or undefined when it is not one ≥ 0 (hex, binary, NaN, negative, …). */
export function parseDecimalLoad(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) || value === Number.POSITIVE_INFINITY ? value : undefined;
}

/** A load within 0..MAX_LOAD, and whether it had to be lowered; undefined for NaN or a negative. */
export function clampLoad(value: number): { value: number; clamped: boolean } | undefined {
  if (!(value >= 0)) return undefined;
  return value > MAX_LOAD ? { value: MAX_LOAD, clamped: true } : { value, clamped: false };
}
