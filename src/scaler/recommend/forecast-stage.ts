/**
 * The forecast's part of the adaptive stage (forecast.ts): the season read from the target's row
 * (`loadSeason`, the same row the stage reads each reconcile: no further read), a completed
 * bucket folded into it, and this minute's floor over the rule's answer. `off` reads and writes
 * none of it.
 */
import type { ForecastLine } from '../../state/decisions.js';
import type { TargetRecord } from '../read/target-record.js';
import { bound, type Bound } from '../read/rule-names.js';
import { parsedOnce, readJson } from '../read/record-json.js';
import type { MinuteHistory } from './adaptive-history.js';
import type { ForecastMode } from './adaptive.js';
import { EMPTY_SEASON, foldSeason, forecastFloor, type ForecastInput, type Season } from './forecast.js';


/** The row's form: buckets from `s`, each a mean or null. */
interface StoredSeason {
  s: number;
  v: (number | null)[];
}

const isStored = (v: unknown): v is StoredSeason =>
  typeof v === 'object' && v !== null && typeof (v as StoredSeason).s === 'number' && Array.isArray((v as StoredSeason).v) && (v as StoredSeason).v.every((n) => n === null || typeof n === 'number');

/** The row's season, each text parsed once (a bucket completes every 5 minutes); a damaged text reads as none. */
const readSeason = parsedOnce(64, (text: string): Season => {
  const stored = readJson<StoredSeason | undefined>(text, undefined, isStored);
  return stored ? { start: stored.s, values: stored.v } : EMPTY_SEASON;
});
export function seasonIn(record: Pick<TargetRecord, 'loadSeason'> | undefined): Season {
  const text = record?.loadSeason;
  return text ? readSeason(text) : EMPTY_SEASON;
}

/** A value as JSON in at most 8 characters (`523.4`, `1.234e-4`, `1e15`): the shorter of its plain and exponent forms. */
function compact(v: number): string {
  const plain = String(v);
  const exponent = v.toExponential().replace('e+', 'e');
  return plain.length <= exponent.length ? plain : exponent;
}

/**
 * The row's text: `{"s":…,"v":[…]}`. Values of four significant digits are written in their
 * shorter form, so 2,304 of them stay under 21,000 characters whatever their size (an Azure
 * Table string property holds 32K).
 */
export function seasonText(season: Season): string {
  return `{"s":${season.start},"v":[${season.values.map((v) => (v === null ? 'null' : compact(v))).join(',')}]}`;
}

export interface SeasonStep {
  /** The season after this minute's fold: the row's own object when no bucket completed. */
  season: Season;
  /** A bucket completed: the row's field is written. */
  changed: boolean;
}

/** The row's season with the history's buckets completed before `minute` folded in. */
export function foldedSeason(record: TargetRecord | undefined, history: Pick<MinuteHistory, 'start' | 'load'>, minute: number): SeasonStep {
  const stored = seasonIn(record);
  const season = foldSeason(stored, history, minute);
  return { season, changed: season !== stored };
}

/** The forecast on this minute: `floor` raises the rule's answer to ForecastFloor, `observe` leaves it; either says what the floor is. */
export function withForecast(mode: ForecastMode, season: Season | undefined, input: ForecastInput, out: Bound): { out: Bound; note?: ForecastLine } {
  const floor = mode === 'off' || !season ? undefined : forecastFloor(season, input);
  if (mode === 'off' || floor === undefined) return { out };
  const wouldRaise = floor > out.replicas;
  return { out: wouldRaise && mode === 'floor' ? bound(floor, 'ForecastFloor') : out, note: { mode, floor, wouldRaise } };
}
