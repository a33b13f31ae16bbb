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
