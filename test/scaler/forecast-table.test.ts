// The adaptive policy's forecast as tables (src/scaler/recommend/forecast.ts): each row a season
// and a minute, and its hand-computed rise and floor; then how the season is folded from the
// per-minute history, and how long its field in the row may grow.
import { describe, expect, it } from 'vitest';
import { foldSeason, forecastFloor, forecastRise, riseSeen, risesOver, SEASON_BUCKETS, type Season } from '../../src/scaler/recommend/forecast.js';
import { seasonIn, seasonText } from '../../src/scaler/recommend/forecast-stage.js';
import { delayWindows } from '../../src/scaler/recommend/adaptive.js';
import { calibrate, replayer } from '../../src/scaler/recommend/headroom.js';

/** A day and a week in buckets of 5 minutes. */
const DAY = 288;
const WEEK = 2016;

/** A season from bucket 0 holding `known` (bucket → mean), every other bucket up to the last known null. */
function seasonWith(known: Record<number, number>): Season {
  const last = Math.max(...Object.keys(known).map(Number));
  return { start: 0, values: Array.from({ length: last + 1 }, (_, b) => known[b] ?? null) };
}

/** Minute 1,465 is in bucket 293: a day before it is bucket 5 (the level then: buckets 2–5), and a week before it is before the season. */
const T = (DAY + 5) * 5;
/** Minute 10,105 is in bucket 2,021: a day before it is bucket 1,733, a week before it bucket 5. */
const TW = (WEEK + 5) * 5;
/** The level a day before T, 10: buckets 2–5. */
const FLAT = { 2: 10, 3: 10, 4: 10, 5: 10 };

describe('the rise of the level a period before (riseSeen, forecastRise)', () => {
  it.each([
    // ahead 3 → ⌈3 ÷ 5⌉ + 1 = 2 buckets after bucket 5: (20 + 40) ÷ 2 − 10
    { name: 'a day ago the level was 10 and the two buckets after it 20 and 40: a rise of 20', season: seasonWith({ ...FLAT, 6: 20, 7: 40 }), minute: T, ahead: 3, want: 20 },
    { name: 'any minute of the same bucket sees the same buckets', season: seasonWith({ ...FLAT, 6: 20, 7: 40 }), minute: T + 4, ahead: 3, want: 20 },
    // the level then is the mean of buckets 2–5: (8 + 12 + 9 + 11) ÷ 4 = 10, and (12 + 8) ÷ 2 = 10 after it
    { name: 'noise around a flat level is no rise (it is the headroom’s)', season: seasonWith({ 2: 8, 3: 12, 4: 9, 5: 11, 6: 12, 7: 8 }), minute: T, ahead: 3, want: 0 },
    { name: 'a rise beyond the window is not seen yet', season: seasonWith({ ...FLAT, 6: 10, 7: 10, 8: 90 }), minute: T, ahead: 3, want: 0 },
    // ahead 10 → 3 buckets: (10 + 10 + 70) ÷ 3 − 10
    { name: 'a longer start-up delay looks further ahead', season: seasonWith({ ...FLAT, 6: 10, 7: 10, 8: 70 }), minute: T, ahead: 10, want: 20 },
    // (20 + 10) ÷ 2 − 30 = −15
    { name: 'a fall a day ago forecasts no rise (never below 0)', season: seasonWith({ 2: 30, 3: 30, 4: 30, 5: 30, 6: 20, 7: 10 }), minute: T, ahead: 3, want: 0 },
    { name: 'a bucket ahead not seen (a gap) leaves the day unknown: no forecast', season: seasonWith({ ...FLAT, 6: 20 }), minute: T, ahead: 3, want: undefined },
    { name: 'a bucket of the level then not seen: no forecast', season: seasonWith({ 2: 10, 4: 10, 5: 10, 6: 20, 7: 40 }), minute: T, ahead: 3, want: undefined },
    { name: 'a new target (an empty season): no forecast', season: { start: 0, values: [] }, minute: T, ahead: 3, want: undefined },
    // day: (12 + 18) ÷ 2 − 10 = 5; week: (20 + 40) ÷ 2 − 10 = 20; the smaller
    { name: 'a day and a week both known: the smaller rise (each must show it)', season: seasonWith({ ...FLAT, 6: 20, 7: 40, 1730: 10, 1731: 10, 1732: 10, 1733: 10, 1734: 12, 1735: 18 }), minute: TW, ahead: 3, want: 5 },
    { name: 'a rise a week ago that yesterday did not show is not forecast', season: seasonWith({ ...FLAT, 6: 20, 7: 40, 1730: 10, 1731: 10, 1732: 10, 1733: 10, 1734: 10, 1735: 8 }), minute: TW, ahead: 3, want: 0 },
    { name: 'a week known and yesterday a gap: the week’s rise', season: seasonWith({ ...FLAT, 6: 20, 7: 40, 1734: 12 }), minute: TW, ahead: 3, want: 20 },
  ])('$name', ({ season, minute, ahead, want }) => {
    expect(forecastRise(season, minute, ahead)).toBe(want);
  });

  it('each period on its own: the day’s and the week’s rise at the same minute', () => {
    const season = seasonWith({ ...FLAT, 6: 20, 7: 40, 1730: 10, 1731: 10, 1732: 10, 1733: 10, 1734: 12, 1735: 18 });
    expect(riseSeen(season, TW, 3, DAY)).toBe(5);
    expect(riseSeen(season, TW, 3, WEEK)).toBe(20);
  });

  it('the rise at each minute, 0 where none is known (what the headroom is calibrated with under floor)', () => {
    // Minutes T − 5 … T − 1 are in bucket 292: the level a day before is buckets 1–4 (10), then (10 + 20) ÷ 2: 5.
    expect(risesOver(seasonWith({ 1: 10, ...FLAT, 6: 20, 7: 40 }), T - 5, 10, 3)).toEqual([5, 5, 5, 5, 5, 20, 20, 20, 20, 20]);
    expect(risesOver(seasonWith({ ...FLAT, 6: 20, 7: 40 }), T - 5, 10, 3)).toEqual([0, 0, 0, 0, 0, 20, 20, 20, 20, 20]);
  });
});

describe('ForecastFloor: the recommendation for the level plus the rise', () => {
  const season = seasonWith({ ...FLAT, 6: 20, 7: 40 });
  it.each([
    // ⌈(40 + 20 + 5) ÷ 10⌉
    { name: 'level 40, a rise of 20 and a headroom of 5 at 10 a replica: 7', level: 40, headroom: 5, want: 7 },
    { name: 'a level of 0 and the rise alone: ⌈20 ÷ 10⌉ = 2', level: 0, headroom: 0, want: 2 },
  ])('$name', ({ level, headroom, want }) => {
    expect(forecastFloor(season, { minute: T, ahead: 3, level, headroom, targetPerReplica: 10 })).toBe(want);
  });

  it('no rise forecast: the floor is the recommendation itself (⌈45 ÷ 10⌉); no period known: no floor', () => {
    expect(forecastFloor(seasonWith({ 2: 30, 3: 30, 4: 30, 5: 30, 6: 20, 7: 10 }), { minute: T, ahead: 3, level: 40, headroom: 5, targetPerReplica: 10 })).toBe(5);
    expect(forecastFloor(seasonWith({ 6: 20 }), { minute: T, ahead: 3, level: 40, headroom: 5, targetPerReplica: 10 })).toBeUndefined();
  });
});

describe('the headroom under forecast: floor, calibrated on the levels raised by their rises', () => {
  // 200 minutes of VMs (decided 3 minutes ahead): 10 until minute 180, then 100; the budget 1 %.
  const windows = delayWindows(3 * 60_000);
  const history = { load: Array.from({ length: 200 }, (_, m) => (m < 180 ? 10 : 100)), scale: Array<number>(200).fill(1) };
  // What the forecast had for the step: seen 10 minutes ahead, a rise of 90 until it came.
  const rises = history.load.map((_, m) => (m >= 170 && m < 180 ? 90 : 0));

  it('without the forecast the step goes unserved for the start-up delay, and the headroom must cover it', () => {
    expect(replayer(history, windows, 10)!(0, windows.evidence).unserved).toBeGreaterThan(0.01);
    expect(calibrate(history, windows, [windows.evidence], 0.01, 10).headroom).toBeGreaterThan(0);
  });

  it('with the step forecast nothing goes unserved: no headroom is needed for it', () => {
    expect(replayer(history, windows, 10, rises)!(0, windows.evidence).unserved).toBe(0);
    expect(calibrate(history, windows, [windows.evidence], 0.01, 10, rises).headroom).toBe(0);
  });
});

describe('the season folded from the per-minute history', () => {
  // Minutes 1,003 … 1,014: buckets 201 (1,005–1,009) and 202 (1,010–1,014) are whole in it.
  const history = { start: 1_003, load: [1, 2, 10, 20, 30, 40, 50.123_45, 5, 5, 5, 5, 7] };

  it.each([
    // (10 + 20 + 30 + 40 + 50.12345) ÷ 5 = 30.02469 → 4 digits; (5 + 5 + 5 + 5 + 7) ÷ 5 = 5.4
    { name: 'a new season starts at the first bucket the history holds whole', season: { start: 0, values: [] }, minute: 1_015, want: { start: 201, values: [30.02, 5.4] } },
    { name: 'only buckets whole before the minute in progress', season: { start: 0, values: [] }, minute: 1_014, want: { start: 201, values: [30.02] } },
    // bucket 200 is minutes 1,000–1,004: the history starts at 1,003
    { name: 'a bucket the history does not hold whole is null (a gap)', season: { start: 199, values: [8] }, minute: 1_015, want: { start: 199, values: [8, null, 30.02, 5.4] } },
    { name: 'a season carries on from its last bucket', season: { start: 200, values: [8, 30.02] }, minute: 1_015, want: { start: 200, values: [8, 30.02, 5.4] } },
  ])('$name', ({ season, minute, want }) => {
    expect(foldSeason(season, history, minute)).toEqual(want);
  });

  it('no bucket completed, or a clock stepped back: the same object (nothing written)', () => {
    const season = { start: 200, values: [8, 30.02, 5.4] };
    expect(foldSeason(season, history, 1_016)).toBe(season);
    expect(foldSeason(season, history, 900)).toBe(season);
  });

  it('keeps eight days: the oldest bucket goes as a new one comes', () => {
    const season = { start: 0, values: Array<number>(SEASON_BUCKETS).fill(1) };
    const next = foldSeason(season, { start: SEASON_BUCKETS * 5, load: [2, 2, 2, 2, 2, 2] }, SEASON_BUCKETS * 5 + 5);
    expect(next.start).toBe(1);
    expect(next.values).toHaveLength(SEASON_BUCKETS);
    expect(next.values.at(-1)).toBe(2);
  });

  it('after a gap longer than eight days it starts over eight days back, nulls where the history has nothing', () => {
    const minute = 3 * SEASON_BUCKETS * 5 + 5;
    const next = foldSeason({ start: 0, values: [1] }, { start: minute - 6, load: [3, 3, 3, 3, 3, 3, 3] }, minute);
    expect(next.start).toBe(minute / 5 - SEASON_BUCKETS);
    expect(next.values).toHaveLength(SEASON_BUCKETS);
    expect(next.values.at(-1)).toBe(3);
    expect(next.values.filter((v) => v !== null)).toHaveLength(1);
  });
});

describe('the season in the row (loadSeason)', () => {
  /** Eight days of one-minute loads folded at once, each load drawn by `load`. */
  const eightDays = (load: (m: number) => number) => {
    const minutes = SEASON_BUCKETS * 5;
    return foldSeason({ start: 0, values: [] }, { start: 0, load: Array.from({ length: minutes + 1 }, (_, m) => load(m)) }, minutes);
  };

  it('eight days of a diurnal load in hundreds stay a field far under Azure Table’s 32K characters', () => {
    const season = eightDays((m) => 400 + 300 * Math.sin((2 * Math.PI * m) / 1_440) + ((m * 7_919) % 97) / 7);
    expect(season.values).toHaveLength(SEASON_BUCKETS);
    // 2,304 values of at most 4 digits and a point, comma-separated: about 12,000 characters.
    expect(seasonText(season).length).toBeLessThan(16_000);
  });

  it.each([
    { name: 'tiny loads (0.000001234 is 11 characters as JSON would write it)', load: 0.000_001_234 },
    { name: 'loads at the ceiling (1e15 is 16 characters as JSON would write it)', load: 1e15 },
  ])('$name: each value in at most 8 characters, the field under 21,000, and read back the same', ({ load }) => {
    const season = eightDays((m) => load * (1 + (m % 5) / 1_000));
    const text = seasonText(season);
    expect(text.length).toBeLessThan(21_000);
    expect(Math.max(...text.slice(text.indexOf('[') + 1, -2).split(',').map((v) => v.length))).toBeLessThanOrEqual(8);
    expect(seasonIn({ loadSeason: text })).toEqual(season);
  });

  it('reads back what was written; a damaged field reads as no season', () => {
    const season = { start: 201, values: [30.02, null, 5.4] };
    expect(seasonIn({ loadSeason: seasonText(season) })).toEqual(season);
    expect(seasonIn({ loadSeason: '{"s":1,"v":["x"]}' })).toEqual({ start: 0, values: [] });
    expect(seasonIn({ loadSeason: 'not json' })).toEqual({ start: 0, values: [] });
  });
});
