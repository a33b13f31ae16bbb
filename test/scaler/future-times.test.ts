import { describe, expect, it } from 'vitest';
import { SampleWindow } from '../../src/load/sample-window.js';
import { windowAverage } from '../../src/load/samples.js';
import { clampBehaviorHistory, clampRecordTimes, clampSamples, clampTime } from '../../src/scaler/read/future-times.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const HOUR = 3_600_000;

describe('times from the future read as now', () => {
  it.each([
    { name: 'an hour ahead', at: NOW + HOUR, read: NOW },
    { name: 'a millisecond ahead', at: NOW + 1, read: NOW },
    { name: 'now', at: NOW, read: NOW },
    { name: 'in the past', at: NOW - HOUR, read: NOW - HOUR },
  ])('a time $name', ({ at, read }) => {
    expect(clampTime(at, NOW)).toBe(read);
  });

  it.each([
    { field: 'activeSince', ahead: true },
    { field: 'lastScaledAt', ahead: true },
    { field: 'activatorSeenSince', ahead: true },
    { field: 'wakeRequestedAt', ahead: true },
    { field: 'panicStartedAt', ahead: true },
    { field: 'panicLastOverAt', ahead: true },
    { field: 'pausedAt', ahead: true },
    { field: 'activeSince', ahead: false },
  ])('a record whose $field is ahead: $ahead', ({ field, ahead }) => {
    const at = ahead ? NOW + HOUR : NOW - HOUR;
    const record = { activeStatus: 'True' as const, [field]: at, desiredScale: 3 };
    const read = clampRecordTimes(record, NOW)!;
    expect(read).toEqual({ ...record, [field]: ahead ? NOW : at });
    expect(record[field]).toBe(at);
    if (!ahead) expect(read).toBe(record);
  });

  it('no record stays no record', () => {
    expect(clampRecordTimes(undefined, NOW)).toBeUndefined();
  });

  it.each([
    {
      name: 'recommendations and events ahead',
      stored: { recommendations: [{ at: NOW + HOUR, low: 2, high: 5 }, { at: NOW - 1, low: 3, high: 3 }], upEvents: [{ at: NOW + 5, change: 2 }], downEvents: [{ at: NOW + HOUR, change: 1 }] },
      read: { recommendations: [{ at: NOW, low: 2, high: 5 }, { at: NOW - 1, low: 3, high: 3 }], upEvents: [{ at: NOW, change: 2 }], downEvents: [{ at: NOW, change: 1 }] },
    },
    { name: 'nothing ahead', stored: { upEvents: [{ at: NOW - 5, change: 2 }], downEvents: [] }, read: { upEvents: [{ at: NOW - 5, change: 2 }], downEvents: [] } },
  ])('a behaviour history with $name', ({ stored, read }) => {
    expect(JSON.parse(clampBehaviorHistory(JSON.stringify(stored), NOW)!)).toEqual(read);
    const record = clampRecordTimes({ behaviorHistory: JSON.stringify(stored) }, NOW)!;
    expect(JSON.parse(record.behaviorHistory!)).toEqual(read);
  });

  it.each([undefined, '', 'not json', 'null', '[1,2]'])('a history that does not read (%s) is left for the reader to refuse', (text) => {
    expect(clampBehaviorHistory(text, NOW)).toBe(text);
  });

  it('a sample ahead counts in the window as taken now; one behind the window does not', () => {
    const samples = [
      { at: NOW - 2 * HOUR, value: 100 },
      { at: NOW - 10_000, value: 2 },
      { at: NOW + HOUR, value: 4 },
    ];
    for (const form of [samples, SampleWindow.from(samples)]) {
      expect(windowAverage(form as typeof samples, NOW, 60_000, false)).toBe(2);
      expect(windowAverage(clampSamples(form, NOW) as typeof samples, NOW, 60_000, false)).toBe(3);
    }
    expect(clampSamples(samples, NOW)).toEqual([samples[0], samples[1], { at: NOW, value: 4 }]);
  });

  it('samples with none ahead are passed on as they are', () => {
    const samples = [{ at: NOW - 1, value: 1 }];
    const window = SampleWindow.from(samples);
    expect(clampSamples(samples, NOW)).toBe(samples);
    expect(clampSamples(window, NOW)).toBe(window);
  });
});
