/**
 * What the adaptive policy remembers of each minute, pure: the load, the recommendation, the
 * lowest ready count seen and the scale decided. The headroom's calibration replays the rule over
 * it and the budget is drawn on from it (headroom.ts); the evidence window reads the
 * recommendations. Kept per target in its row (`loadMinutes`), as columns from a first minute.
 */
import { CALIBRATION_MINUTES, LEVEL_MINUTES, type DelayWindows } from './adaptive.js';

export interface MinuteHistory {
  /** The first minute kept, in minutes since the epoch. */
  start: number;
  /** Each minute's highest load. */
  load: number[];
  /** Each minute's highest recommendation (replicas). */
  recommended: number[];
  /** Each minute's lowest ready count. */
  ready: number[];
  /** The scale decided last in each minute. */
  scale: number[];
}

export const EMPTY_HISTORY: MinuteHistory = { start: 0, load: [], recommended: [], ready: [], scale: [] };

/** Minutes kept: the calibration's window, the level and two evidence windows before it (the replay's start holds one). */
export function minutesKept(windows: DelayWindows): number {
  return CALIBRATION_MINUTES + LEVEL_MINUTES + windows.ahead + 2 * windows.evidence;
}

/**
 * The history with `minute` as its last minute: a minute already there takes the higher load and
 * the lower ready count; minutes skipped since hold the last minute's values (nothing was seen to
 * change); the oldest beyond `keep` are dropped. A minute before the last (a clock step back)
 * starts the history over. Nothing changed: the same object (the caller writes nothing).
 */
export function recordMinute(history: MinuteHistory, minute: number, seen: { load: number; ready: number }, keep: number): MinuteHistory {
  const last = history.start + history.load.length - 1;
  if (history.load.length === 0 || minute < last || minute - last > keep) {
    return { start: minute, load: [seen.load], recommended: [0], ready: [seen.ready], scale: [0] };
  }
  // Within the minute, most readings change nothing: the same history, nothing to write.
  if (minute === last && seen.load <= history.load[history.load.length - 1]! && seen.ready >= history.ready[history.ready.length - 1]!) return history;
  const next = { start: history.start, load: [...history.load], recommended: [...history.recommended], ready: [...history.ready], scale: [...history.scale] };
  if (minute === last) {
    next.load[next.load.length - 1] = Math.max(next.load.at(-1)!, seen.load);
    next.ready[next.ready.length - 1] = Math.min(next.ready.at(-1)!, seen.ready);
  } else {
    for (let m = last + 1; m < minute; m++) for (const column of [next.load, next.recommended, next.ready, next.scale]) column.push(column.at(-1)!);
    next.load.push(seen.load);
    next.ready.push(seen.ready);
    next.recommended.push(0);
    next.scale.push(next.scale.at(-1)!);
  }
  return trimmed(next, keep);
}

/** The last minute with this decision: its recommendation the highest of the minute, its scale the latest. */
export function recordDecision(history: MinuteHistory, recommended: number, scale: number): MinuteHistory {
  const last = history.load.length - 1;
  if ((history.recommended[last] ?? 0) >= recommended && history.scale[last] === scale) return history;
  const rec = [...history.recommended];
  const sc = [...history.scale];
  rec[last] = Math.max(rec[last] ?? 0, recommended);
  sc[last] = scale;
  return { ...history, recommended: rec, scale: sc };
}

function trimmed(history: MinuteHistory, keep: number): MinuteHistory {
  const drop = history.load.length - keep;
  if (drop <= 0) return history;
  return {
    start: history.start + drop,
    load: history.load.slice(drop),
    recommended: history.recommended.slice(drop),
    ready: history.ready.slice(drop),
    scale: history.scale.slice(drop),
  };
}

/** The whole minutes before the last one (the minute in progress is still filling). */
export function completeMinutes(history: MinuteHistory): MinuteHistory {
  const n = Math.max(0, history.load.length - 1);
  return { start: history.start, load: history.load.slice(0, n), recommended: history.recommended.slice(0, n), ready: history.ready.slice(0, n), scale: history.scale.slice(0, n) };
}
