/**
 * The adaptive policy's stage (adaptive.ts, headroom.ts), after Knative's windows and before
 * `behavior`: the start-up delay learned from the raises; once a minute, the budget drawn on by
 * the minute just ended and the headroom and evidence window calibrated to it; then the rule,
 * raised to the forecast's floor under `forecast.mode: floor` (forecast-stage.ts), within the configured rate
 * limits. `policy: knative` passes through. Without a load answer (no evidence, a fallback
 * standing for the load) it keeps nothing and changes nothing: no evidence is never turned into
 * a fall. A target that may sleep and whose load asks for no replica at all is left to the
 * scale-to-zero stage's rules.
 */
import { replicasFor, withinRateLimits, type DesiredScale } from '../../load/decider.js';
import { clampReplicas } from '../../limits.js';
import type { TargetRecord, TargetRecordPatch } from '../read/target-record.js';
import type { PolicyRule } from '../read/rule-names.js';
import { RATE_RULES } from '../read/bound-rules.js';
import { parsedOnce, readJson } from '../read/record-json.js';
import { EMPTY_STARTUP, MINUTE_MS, delayWindows, levelNow, nextScale, observeStartup, recommendation, startupDelayOf, type AdaptiveSettings, type DelayWindows, type StartupDelay, type StartupState } from './adaptive.js';
import { EMPTY_HISTORY, completeMinutes, minutesKept, recordDecision, recordMinute, type MinuteHistory } from './adaptive-history.js';
import { EVIDENCE_CHOICE_MINUTES, NO_DAY_DEMAND, budgetInForce, calibrate, demandWeighted, evidenceChoices, foldBudget, foldDayDemand, holdsCalibrationWindow, unservedShare, windowDemand, youngEvidence, type DayDemand } from './headroom.js';
import type { SourcesContext } from './sources-view.js';
import { foldedSeason, seasonIn, seasonText, withForecast } from './forecast-stage.js';
import type { ForecastLine } from '../../state/decisions.js';
import { forecastFloor, risesOver, type Season } from './forecast.js';

interface StageState {
  replicas: number | undefined;
  desired?: DesiredScale;
  boundBy?: string;
}

export interface AdaptiveStage {
  readonly name: 'adaptive';
  run(state: StageState, ctx: SourcesContext): { replicas: number | undefined; boundBy?: PolicyRule; changes?: TargetRecordPatch; forecast?: ForecastLine };
}

/**
 * The row's form (`loadMinutes`): the history's columns from minute `s`; the headroom and the
 * evidence window (minutes) as last calibrated, in minute `h[0]` for a delay of `h[1]` ms (a row
 * written before the window was calibrated has none: a young target's); the budget's balance and the
 * day's mean demand (with the minutes it holds) as of minute `b[0]` (a row written before the
 * mean was kept has none: it starts again).
 * Calibrating and drawing on the budget happen once a minute: a target reconciled every few
 * seconds pays for them once.
 */
interface StoredHistory {
  s: number;
  v: number[];
  u: number[];
  r: number[];
  c: number[];
  h?: [minute: number, delayMs: number, value: number, evidence?: number];
  b?: [minute: number, balance: number, dayDemand?: number, dayMinutes?: number];
}

const isNumbers = (v: unknown, length?: number) => Array.isArray(v) && v.every((n) => typeof n === 'number') && (length === undefined || v.length === length);
function isStored(v: unknown): v is StoredHistory {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as StoredHistory;
  const n = Array.isArray(o.v) ? o.v.length : -1;
  return typeof o.s === 'number' && isNumbers(o.v) && isNumbers(o.u, n) && isNumbers(o.r, n) && isNumbers(o.c, n) && (o.h === undefined || isNumbers(o.h, 3) || isNumbers(o.h, 4)) && (o.b === undefined || isNumbers(o.b, 2) || isNumbers(o.b, 4));
}
const isStartup = (v: unknown) => typeof v === 'object' && v !== null && Array.isArray((v as StartupState).observed) && (v as StartupState).observed.every((n) => typeof n === 'number');

const historyOf = (stored: StoredHistory | undefined): MinuteHistory => (stored ? { start: stored.s, load: stored.v, recommended: stored.u, ready: stored.r, scale: stored.c } : EMPTY_HISTORY);

/** The row's field read back, with its history; each text parsed once. */
const readParsed = parsedOnce(256, (text: string) => {
  const stored = readJson<StoredHistory | undefined>(text, undefined, isStored);
  return stored ? { stored, history: historyOf(stored) } : undefined;
});
const readStored = (text: string | undefined) => (text ? readParsed(text) : undefined);

/** Six significant digits: a load's noise is far coarser, and the row's field stays short. Applied as a reading is recorded, so what is decided on is what is stored. */
const rounded = (v: number) => Number(v.toPrecision(6));

export function historyText(history: MinuteHistory, h: StoredHistory['h'], b: StoredHistory['b']): string {
  const calibration = h && ([h[0], h[1], rounded(h[2]), ...h.slice(3)] as NonNullable<StoredHistory['h']>);
  const stored: StoredHistory = { s: history.start, v: history.load, u: history.recommended, r: history.ready, c: history.scale, ...(calibration ? { h: calibration } : {}), ...(b ? { b: b.map((v, i) => (i === 0 ? v : rounded(v!))) as NonNullable<StoredHistory['b']> } : {}) };
  return JSON.stringify(stored);
}

const readStartup = parsedOnce(16, (text: string) => readJson(text, EMPTY_STARTUP, isStartup));
/** The row's start-up observations. */
export function startupStateOf(record: TargetRecord | undefined): StartupState {
  const text = record?.startupDelay;
  return text ? readStartup(text) : EMPTY_STARTUP;
}

const storedIn = (record: TargetRecord | undefined) => readStored(record?.loadMinutes)?.stored;

/** The start-up delay a target's row says it has (status, the decision log). */
export function startupDelayIn(record: TargetRecord | undefined, settings: AdaptiveSettings): StartupDelay {
  return startupDelayOf(startupStateOf(record), settings.defaultStartupDelayMs);
}

/** The headroom the row last calibrated, in load units; undefined until its history holds the calibration window (a young target runs without one). */
export function headroomIn(record: TargetRecord | undefined, settings: AdaptiveSettings): number | undefined {
  const kept = readStored(record?.loadMinutes);
  if (kept?.stored.h === undefined) return undefined;
  const windows = delayWindows(startupDelayIn(record, settings).ms);
  return holdsCalibrationWindow(kept.history.load.length - 1, windows) ? kept.stored.h[2] : undefined;
}

/** The evidence window (minutes) a fall waits for: as the row last calibrated it, a young target's until then. */
export function evidenceIn(record: TargetRecord | undefined, settings: AdaptiveSettings): number {
  return decidingWindows(delayWindows(startupDelayIn(record, settings).ms), storedIn(record)?.h).evidence;
}

/**
 * The floor the forecast sets on the row's last minute, in replicas (status): the level and the
 * headroom the row holds, its season and its start-up delay; undefined while the mode is off or
 * no period is known.
 */
export function forecastIn(record: TargetRecord | undefined, settings: AdaptiveSettings, targetPerReplica: number): number | undefined {
  const kept = readStored(record?.loadMinutes);
  if (settings.forecast === 'off' || !kept || kept.history.load.length === 0) return undefined;
  const { history, stored } = kept;
  const windows = delayWindows(startupDelayIn(record, settings).ms);
  return forecastFloor(seasonIn(record), { minute: history.start + history.load.length - 1, ahead: windows.ahead, level: levelOf(history, windows), headroom: stored.h?.[2] ?? 0, targetPerReplica });
}

/** The budget the calibration aims at (percent): in force by the row's balance, weighted by its window's demand against the day's. */
export function budgetIn(record: TargetRecord | undefined, settings: AdaptiveSettings, targetPerReplica: number): number {
  const kept = readStored(record?.loadMinutes);
  // The whole minutes: all but the last, which is still filling.
  return 100 * budgetAimedAt(settings.underProvisioningPercent / 100, kept?.stored.b, (kept?.history.load ?? []).slice(0, -1), targetPerReplica);
}

const dayDemandOf = (b: StoredHistory['b']): DayDemand => (b?.[2] === undefined ? NO_DAY_DEMAND : { mean: b[2], minutes: b[3]! });

/** What a calibration on these whole minutes' load aims at, as a share of demand. */
const budgetAimedAt = (budget: number, b: StoredHistory['b'], wholeLoad: readonly number[], targetPerReplica: number) =>
  demandWeighted(budgetInForce(budget, b?.[1] ?? 0), windowDemand(wholeLoad, targetPerReplica), dayDemandOf(b));

interface MinuteWork {
  history: MinuteHistory;
  windows: DelayWindows;
  budget: number;
  targetPerReplica: number;
  minute: number;
  /** `forecast.mode: floor`: the season whose rises the headroom is calibrated with. */
  season?: Season;
}

/** The balance and the day's mean demand after the whole minutes since they were last drawn on (none the first time: the balance starts at 0, the mean empty). */
function drawnBudget(stored: StoredHistory['b'], work: MinuteWork): NonNullable<StoredHistory['b']> {
  if (!stored) return [work.minute, 0, 0, 0];
  if (stored[0] >= work.minute) return stored;
  const { history, windows, budget, targetPerReplica } = work;
  let balance = stored[1];
  let day = dayDemandOf(stored);
  for (let m = Math.max(stored[0], history.start); m < work.minute; m++) {
    const i = m - history.start;
    if (i >= history.load.length) break;
    const demand = replicasFor(history.load[i]!, targetPerReplica);
    balance = foldBudget(balance, unservedShare(demand, history.ready[i]!, windows.exposure), budget);
    day = foldDayDemand(day, demand);
  }
  return [work.minute, balance, day.mean, day.minutes];
}

/**
 * The headroom and the evidence window over the whole minutes before this one: the row's, when
 * they were calibrated this minute for this delay. Under `forecast.mode: floor`, on the levels
 * raised by the forecast's rises: the headroom the policy needs beside the forecast, so that it
 * keeps to its budget.
 */
function calibrated(stored: StoredHistory['h'], work: MinuteWork, delayMs: number, balance: NonNullable<StoredHistory['b']>): NonNullable<StoredHistory['h']> {
  if (stored && stored[0] === work.minute && stored[1] === delayMs) return stored;
  const whole = completeMinutes(work.history);
  const target = budgetAimedAt(work.budget, balance, whole.load, work.targetPerReplica);
  const rises = work.season && risesOver(work.season, whole.start, whole.load.length, work.windows.ahead);
  const { headroom, evidence } = calibrate(whole, work.windows, evidenceToWeigh(stored, work, delayMs), target, work.targetPerReplica, rises);
  return [work.minute, delayMs, headroom, evidence];
}

/** The evidence windows this minute's calibration weighs: all of them every EVIDENCE_CHOICE_MINUTES (or for a new delay), else the one last chosen. */
function evidenceToWeigh(stored: StoredHistory['h'], work: MinuteWork, delayMs: number): number[] {
  const kept = stored?.[1] === delayMs ? stored[3] : undefined;
  return kept === undefined || work.minute % EVIDENCE_CHOICE_MINUTES === 0 ? evidenceChoices(work.windows) : [kept];
}

/**
 * The windows the rule decides with: the evidence window calibrated with the headroom (until one
 * was, the one a young target takes), never beyond the longest a row keeps the history for.
 */
function decidingWindows(windows: DelayWindows, h: StoredHistory['h']): DelayWindows {
  const chosen = h?.[3] ?? youngEvidence(windows);
  return { ...windows, evidence: Math.min(windows.evidence, Math.max(1, Math.round(chosen))) };
}

/** The load's level on the history's last minute: a young history's (no headroom calibrated yet) is its recent minutes'. */
const levelOf = (history: MinuteHistory, windows: DelayWindows) => levelNow(history.load, windows, holdsCalibrationWindow(history.load.length - 1, windows));

/** The rule on this minute's history: the level and the recommendation now, the evidence and fall-to windows' highest. */
function decide(history: MinuteHistory, windows: DelayWindows, headroom: number, seen: { scale: number; load: number }, targetPerReplica: number) {
  const last = history.load.length - 1;
  const level = levelOf(history, windows);
  const recommended = recommendation(level, headroom, targetPerReplica);
  const highOf = (width: number) => Math.max(recommended, ...history.recommended.slice(Math.max(0, last - width), last));
  return {
    level,
    recommended,
    out: nextScale({
      scale: seen.scale,
      recommended,
      evidenceHigh: last >= windows.evidence ? highOf(windows.evidence) : undefined,
      recentHigh: highOf(windows.fallTo),
      floor: windows.exposure < 1 ? replicasFor(seen.load, targetPerReplica) : 0,
    }),
  };
}

const mayScaleToZero = (settings: SourcesContext['settings']) => settings.scaleToZero.enableScaleToZero && settings.bounds.minScale === 0;

export const adaptiveStage: AdaptiveStage = {
  name: 'adaptive',
  run: (state, ctx) => {
    const settings = ctx.settings.policy?.adaptive;
    const desired = state.desired;
    if (!settings || state.replicas === undefined || desired?.kind !== 'known' || state.boundBy === 'FallbackActive') return { replicas: state.replicas };
    // A target that may sleep sleeps by the scale-to-zero rules (grace period, stable window, cooldown): an idle load's zero goes to them.
    if (state.replicas === 0 && mayScaleToZero(ctx.settings)) return { replicas: 0 };
    const { record, now } = ctx;
    // Counts as an adapter may report them (NaN, fractions, past the ceiling): whole and within 0..MAX_REPLICAS.
    const observation = { scale: Math.floor(clampReplicas(ctx.observation.scale)), ready: Math.floor(clampReplicas(ctx.observation.ready)), startable: Math.floor(clampReplicas(ctx.observation.startable ?? 0)) };
    const startup = startupStateOf(record);
    const delay = startupDelayOf(startup, settings.defaultStartupDelayMs);
    const windows = delayWindows(delay.ms);
    const kept = readStored(record?.loadMinutes);
    const stored = kept?.stored;
    const minute = Math.floor(now / MINUTE_MS);
    const targetPerReplica = ctx.settings.desired.targetPerReplica;
    const history = recordMinute(kept?.history ?? EMPTY_HISTORY, minute, { load: rounded(desired.average), ready: observation.ready }, minutesKept(windows));
    const seasonal = settings.forecast === 'off' ? undefined : foldedSeason(record, history, minute);
    const work: MinuteWork = { history, windows, budget: settings.underProvisioningPercent / 100, targetPerReplica, minute, ...(settings.forecast === 'floor' && seasonal ? { season: seasonal.season } : {}) };
    const balance = drawnBudget(stored?.b, work);
    const headroom = calibrated(stored?.h, work, delay.ms, balance);
    const { level, recommended, out: rule } = decide(history, decidingWindows(windows, headroom), headroom[2], { scale: observation.scale, load: desired.average }, targetPerReplica);
    const { out, note } = withForecast(settings.forecast, seasonal?.season, { minute, ahead: windows.ahead, level, headroom: headroom[2], targetPerReplica }, rule);
    const limited = withinRateLimits(out.replicas, observation.ready, ctx.settings.desired);
    const replicas = limited.scale;
    const boundBy = limited.limitedBy ? RATE_RULES[limited.limitedBy] : out.boundBy;
    // An applied floor is a recommendation like the headroom's: a fall from it waits for the evidence.
    const next = recordDecision(history, settings.forecast === 'floor' ? Math.max(recommended, note?.floor ?? 0) : recommended, replicas);
    const nextStartup = observeStartup(startup, observation, replicas, now);
    // Only what changed is written: most reconciles within a minute change neither.
    const changes: TargetRecordPatch = {};
    if (next !== kept?.history || headroom !== stored?.h || balance !== stored?.b) changes.loadMinutes = historyText(next, headroom, balance);
    if (nextStartup !== startup) changes.startupDelay = JSON.stringify(nextStartup);
    if (seasonal?.changed) changes.loadSeason = seasonText(seasonal.season);
    return { replicas, ...(boundBy ? { boundBy } : {}), changes, ...(note ? { forecast: note } : {}) };
  },
};
