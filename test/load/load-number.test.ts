// Load answers are decimal numbers only, and every sample is kept within 0..MAX_LOAD.
import { describe, expect, it } from 'vitest';
import { MAX_LOAD } from '../../src/limits.js';
import { parseLoad } from '../../src/load/http-source.js';
import { clampLoad, parseDecimalLoad } from '../../src/load/load-number.js';
import { decodeSamples } from '../../src/load/samples.js';

describe('parseDecimalLoad', () => {
  it.each([
    ['12', 12],
    [' 12\n', 12],
    ['+3', 3],
    ['0.5', 0.5],
    ['.5', 0.5],
    ['7.', 7],
    ['2.5e3', 2500],
    ['1E-2', 0.01],
    ['1e308', 1e308],
    ['1e400', Number.POSITIVE_INFINITY],
  ])('%j reads as %d', (text, value) => {
    expect(parseDecimalLoad(text)).toBe(value);
  });

  it.each(['0x10', '0b111', '0o7', '0X1F', 'Infinity', '-Infinity', 'NaN', '-1', '', ' ', '1_000', '1,5', '12abc', 'e5', '1e', '.'])('%j is refused', (text) => {
    expect(parseDecimalLoad(text)).toBeUndefined();
  });
});

describe('parseLoad', () => {
  it('names the answer that is not a decimal number', () => {
    expect(parseLoad('0x10', undefined, 'http://x/load')).toEqual({ ok: false, error: 'http://x/load: "0x10" is not a load (a decimal number ≥ 0)' });
    expect(parseLoad('{"depth":"0b111"}', 'depth', 'u')).toEqual({ ok: false, error: 'u: "0b111" is not a load (a decimal number ≥ 0)' });
  });

  it('reads a decimal string or number at the JSON path', () => {
    expect(parseLoad('{"depth":"2.5e1"}', 'depth', 'u')).toEqual({ ok: true, value: 25 });
    expect(parseLoad('{"depth":1e400}', 'depth', 'u')).toEqual({ ok: true, value: Number.POSITIVE_INFINITY });
    expect(parseLoad('{"depth":-3}', 'depth', 'u').ok).toBe(false);
  });
});

describe('clampLoad', () => {
  it('lowers anything past MAX_LOAD to it and refuses NaN and negatives', () => {
    expect(clampLoad(5)).toEqual({ value: 5, clamped: false });
    expect(clampLoad(1e308)).toEqual({ value: MAX_LOAD, clamped: true });
    expect(clampLoad(Number.POSITIVE_INFINITY)).toEqual({ value: MAX_LOAD, clamped: true });
    expect(clampLoad(Number.NaN)).toBeUndefined();
    expect(clampLoad(-1)).toBeUndefined();
  });

  it('applies to stored samples too: a row written before the ceiling reads within it', () => {
    expect(decodeSamples('[[1,1e308],[2,-4],[3,7]]')).toEqual([{ at: 1, value: MAX_LOAD }, { at: 3, value: 7 }]);
  });
});
