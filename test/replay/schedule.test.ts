// The replay's timer: NCRONTAB as the host reads it, stepped without re-parsing, or a period.
import { describe, expect, it } from 'vitest';
import { nextOccurrence } from '../../src/host/schedule.js';
import { parseReplaySchedule } from '../../src/replay/schedule.js';

const START = Date.UTC(2026, 10, 30, 10, 0, 30);

describe('parseReplaySchedule', () => {
  it.each(['0 */1 * * * *', '*/20 * * * * *', '0 0 */6 * * *'])('steps NCRONTAB %s as the host computes each occurrence', (text) => {
    const schedule = parseReplaySchedule(text);
    let mine = START;
    let host = START;
    for (let i = 0; i < 20; i++) {
      mine = schedule.next(mine);
      host = nextOccurrence(text, host);
      expect(mine).toBe(host);
    }
    // A question that does not start at the last answer is answered afresh.
    expect(schedule.next(START)).toBe(nextOccurrence(text, START));
  });

  it('a period is a grid from the epoch', () => {
    const every30s = parseReplaySchedule('30s');
    expect(every30s.next(START)).toBe(START + 30_000);
    expect(every30s.next(START + 1)).toBe(START + 30_000);
  });

  it.each(['', '0 * * *', '-5s', 'soon'])('refuses %j', (text) => {
    expect(() => parseReplaySchedule(text)).toThrow();
  });
});

describe('how often a timer fires over a span (the replay weighs its work on it)', () => {
  const DAY = 86_400_000;
  const MONDAY = Date.UTC(2026, 10, 30);
  it.each<[string, string, number, number, number]>([
    ['a period counts each point of its grid within the span, both ends included', '30s', 0, 60_000, 3],
    ['a period counts none in a span between two points', '30s', 1, 29_999, 0],
    ['100ms over 366 days: 316,224,001', '100ms', 0, 366 * DAY, 316_224_001],
    ['NCRONTAB every minute over one whole day: 1,440', '0 */1 * * * *', MONDAY, MONDAY + DAY - 1, 1_440],
    ['NCRONTAB every second over 366 days: 31,622,400 and a day begun', '* * * * * *', 0, 366 * DAY, 367 * 86_400],
    ['NCRONTAB every second on Mondays, over two weeks: two Mondays', '* * * * * 1', MONDAY, MONDAY + 14 * DAY - 1, 2 * 86_400],
  ])('%s', (_name, text, from, to, want) => {
    expect(parseReplaySchedule(text).count(from, to)).toBe(want);
  });

  it('NCRONTAB asked again and again from one start, as rows come, answers the same as asked once', () => {
    const schedule = parseReplaySchedule('0 0 9 * * 1-5');
    const fresh = parseReplaySchedule('0 0 9 * * 1-5');
    for (let day = 0; day <= 30; day++) schedule.count(MONDAY, MONDAY + day * DAY);
    expect(schedule.count(MONDAY, MONDAY + 30 * DAY)).toBe(fresh.count(MONDAY, MONDAY + 30 * DAY));
    expect(fresh.count(MONDAY, MONDAY + 30 * DAY)).toBe(23);
  });
});
