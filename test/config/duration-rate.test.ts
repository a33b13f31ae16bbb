import { describe, expect, it } from 'vitest';
import { parseDuration, formatDuration } from '../../src/config/duration.js';
import { parseRate } from '../../src/config/rate.js';

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['0', 0],
    ['0s', 0],
    ['10m10s', 610_000],
    ['2us', 0.002],
    ['-1s', -1000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each(['', '5', 'x', '5 m', '1d', 'm5', '1h 30m', '.s'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/invalid duration/);
  });

  it.each([0, 250, 45_000, 5_400_000, 610_000])('formats %d ms back to a string that parses to it', (ms) => {
    expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
});

describe('parseRate (the seed limiter flag)', () => {
  it.each([
    ['1m,1', 60_000, 1],
    ['2m,10', 120_000, 10],
    ['5s,1', 5_000, 1],
    ['0s,1', 0, 1],
    ['1m,0', 60_000, 0],
    ['1m,2147483647', 60_000, 2147483647],
  ])('%s is every %d ms, burst %d', (text, intervalMs, burst) => {
    expect(parseRate(text)).toEqual({ intervalMs, burst });
  });

  it.each([
    ['1m', /invalid syntax/],
    ['1m,1,2', /invalid syntax/],
    ['x,1', /invalid duration/],
    ['1m,-1', /invalid refill rate/],
    ['1m, 1', /invalid refill rate/],
    ['1m,2147483648', /invalid refill rate/],
    [' 1m,1', /invalid duration/],
    ['-1s,1', /invalid duration/],
    ['', /invalid syntax/],
  ])('rejects %j', (text, error) => {
    expect(() => parseRate(text)).toThrow(error);
  });
});
