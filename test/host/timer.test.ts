import { describe, expect, it } from 'vitest';
import { checkSchedule, nextOccurrence } from '../../src/host/timer.js';

describe('NCRONTAB schedules', () => {
  it('computes the next occurrence with a seconds field', () => {
    const at = Date.UTC(2026, 10, 30, 10, 0, 2);
    expect(nextOccurrence('0 */1 * * * *', at)).toBe(Date.UTC(2026, 10, 30, 10, 1, 0));
    expect(nextOccurrence('*/5 * * * * *', at)).toBe(Date.UTC(2026, 10, 30, 10, 0, 5));
  });

  it.each(['*/5 * * * *', 'every minute', '99 * * * * *'])('refuses %j', (schedule) => {
    expect(() => checkSchedule(schedule)).toThrow(/invalid schedule/);
  });
});
