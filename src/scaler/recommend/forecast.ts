/**
 * The adaptive policy's forecast (docs/scaling.md, "Forecast"), pure: the rise of the load's
 * level a day ago and a week ago, over the minutes a raise takes to be ready, is added to the
 * level now, so capacity for a daily or weekly rise is asked for before the rise itself is seen.
 *
 *   the season    each 5-minute bucket's mean load, for eight days, folded in from the
 *                 per-minute history (adaptive-history.ts) as a bucket completes
 *   the rise      per period P: the mean of the ⌈ahead ÷ 5⌉ + 1 buckets after t − P (the level
 *                 ahead then), less the mean of the LEVEL_MINUTES up to it (the level then, as the
 *                 level now is taken); the smallest of the periods that have their buckets (a rise
 *                 is forecast only when each period with data shows it), at least 0
 *   ForecastFloor the recommendation for the level plus that rise, with this minute's headroom
 *
 * It forecasts the level, not the load's noise around it: that is the headroom's, which under
 * `forecast.mode: floor` is calibrated on the levels raised by their rises (headroom.ts), so the
 * policy keeps to its budget with the forecast as without. A period without its buckets (a new
 * target, a gap in the history) forecasts nothing; with neither period, there is no floor.
 */
import { LEVEL_MINUTES, recommendation } from './adaptive.js';
import type { MinuteHistory } from './adaptive-history.js';

/** Minutes a bucket of the season holds. */
export const BUCKET_MINUTES = 5;
/** A day and a week, in buckets: the periods whose rise is forecast. */
export const DAY_BUCKETS = 1_440 / BUCKET_MINUTES;
export const WEEK_BUCKETS = 7 * DAY_BUCKETS;
export const FORECAST_PERIODS = [DAY_BUCKETS, WEEK_BUCKETS] as const;
/** Buckets kept: eight days, so the week ago and the minutes after it are there. */
export const SEASON_BUCKETS = 8 * DAY_BUCKETS;
/** The buckets whose mean is the level then: LEVEL_MINUTES, as the level now. */
const LEVEL_BUCKETS = LEVEL_MINUTES / BUCKET_MINUTES;

/** Each bucket's mean load from bucket `start` (minutes since the epoch ÷ BUCKET_MINUTES); null: not wholly seen. */
export interface Season {
  start: number;
  values: (number | null)[];
}

export const EMPTY_SEASON: Season = { start: 0, values: [] };

/** Four significant digits: a bucket's mean is far noisier, and 2,304 of them stay a short field. */
const rounded = (v: number) => Number(v.toPrecision(4));

/** Bucket `b`'s mean over the history's minutes; null unless the history holds each of its minutes. */
function bucketMean(history: Pick<MinuteHistory, 'start' | 'load'>, b: number): number | null {
  const first = b * BUCKET_MINUTES - history.start;
  if (first < 0 || first + BUCKET_MINUTES > history.load.length) return null;
  let sum = 0;
  for (let i = first; i < first + BUCKET_MINUTES; i++) sum += history.load[i]!;
  return rounded(sum / BUCKET_MINUTES);
}

/**
 * The season with each bucket that is whole before `minute` (the minute in progress) folded in;
 * buckets the history no longer holds (a gap) are null; the oldest beyond SEASON_BUCKETS are
 * dropped. No bucket completed since the last fold (or a clock step back): the same object, and
 * the caller writes nothing.
 */
export function foldSeason(season: Season, history: Pick<MinuteHistory, 'start' | 'load'>, minute: number): Season {
  const end = Math.floor(minute / BUCKET_MINUTES);
  const next = season.values.length > 0 ? season.start + season.values.length : Math.ceil(history.start / BUCKET_MINUTES);
  if (end <= next) return season;
  const from = Math.max(next, end - SEASON_BUCKETS);
  const added: (number | null)[] = [];
  for (let b = from; b < end; b++) added.push(bucketMean(history, b));
  const continues = season.values.length > 0 && from === next;
  const values = continues ? [...season.values, ...added] : added;
  const drop = Math.max(0, values.length - SEASON_BUCKETS);
  return { start: (continues ? season.start : from) + drop, values: drop > 0 ? values.slice(drop) : values };
}

const bucketAt = (season: Season, b: number): number | undefined => season.values[b - season.start] ?? undefined;

/** The mean of buckets [from, to]; undefined unless each is known. */
function meanOf(season: Season, from: number, to: number): number | undefined {
  let sum = 0;
  for (let b = from; b <= to; b++) {
    const v = bucketAt(season, b);
    if (v === undefined) return undefined;
    sum += v;
  }
  return sum / (to - from + 1);
}

/**
 * The rise of the level `period` buckets before `minute`: the mean of the ⌈ahead ÷ 5⌉ + 1
 * buckets after the one then, less the mean of the LEVEL_BUCKETS up to it; undefined unless each
 * of them is known.
 */
export function riseSeen(season: Season, minute: number, ahead: number, period: number): number | undefined {
  const then = Math.floor(minute / BUCKET_MINUTES) - period;
  const before = meanOf(season, then - LEVEL_BUCKETS + 1, then);
  const after = before === undefined ? undefined : meanOf(season, then + 1, then + Math.ceil(ahead / BUCKET_MINUTES) + 1);
  return before === undefined || after === undefined ? undefined : after - before;
}

/** The rise forecast at `minute`: the smallest of the periods' that are known, at least 0; undefined when none is. */
export function forecastRise(season: Season, minute: number, ahead: number): number | undefined {
  const rises = FORECAST_PERIODS.map((p) => riseSeen(season, minute, ahead, p)).filter((r): r is number => r !== undefined);
  return rises.length === 0 ? undefined : Math.max(0, Math.min(...rises));
}

/** The rise forecast at each of `count` minutes from `start`, 0 where none is (the headroom's calibration under `floor`). */
export function risesOver(season: Season, start: number, count: number, ahead: number): number[] {
  return Array.from({ length: count }, (_, i) => forecastRise(season, start + i, ahead) ?? 0);
}

/** What the adaptive stage knows of this minute: the forecast adds its rise to the level it holds. */
export interface ForecastInput {
  /** The minute decided, in minutes since the epoch. */
  minute: number;
  /** Minutes from a raise until it is ready (delayWindows' `ahead`). */
  ahead: number;
  /** The load's level now and the headroom above it. */
  level: number;
  headroom: number;
  targetPerReplica: number;
}

/** ForecastFloor: the replicas for the level plus the forecast rise, with the headroom; undefined while no period is known. */
export function forecastFloor(season: Season, input: ForecastInput): number | undefined {
  const rise = forecastRise(season, input.minute, input.ahead);
  return rise === undefined ? undefined : recommendation(input.level + rise, input.headroom, input.targetPerReplica);
}
