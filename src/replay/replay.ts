/**
 * A replay of one load trace through every target it names: rows are dispatched to the
 * targets' replays as they stream in, and each replay ends at the trace's last instant.
 */
import type { DroverConfig, TargetConfig } from '../config/schema.js';
import { TargetReplay, type ReplayOptions, type TargetReplayResult } from './target-replay.js';
import type { TraceRow } from './trace.js';
import { sizedPool } from './pool-replay.js';
import type { ReplaySchedule } from './schedule.js';

/**
 * A replay's bound on work: each target's timer fires at most this often over the trace's span
 * (one day at `1s` is 86,400; 366 days at `100ms` would be 316 million, hours of work).
 */
export const MAX_REPLAY_RECONCILES = 10_000_000;

/** Input the replay cannot run on (exit 2): an unknown target, rows naming no target. */
export class ReplayInputError extends Error {
  override name = 'ReplayInputError';
}

export interface ReplayRun {
  /** Only this target; rows of other targets are skipped, rows naming none are its. */
  target?: string;
}

/** Rows in memory, or batches of rows as a file is read. */
export type TraceSource = Iterable<TraceRow> | AsyncIterable<readonly TraceRow[]>;

async function* batches(source: TraceSource): AsyncGenerator<readonly TraceRow[]> {
  if (Symbol.asyncIterator in source) yield* source;
  else yield [...source];
}

/**
 * Refuses a timer that would fire more than MAX_REPLAY_RECONCILES times from `from` to `to`,
 * naming the figure and the bound: the CLI asks it before any work, for the trace's two ends,
 * and the replay again as rows come (a trace whose last line could not be read ahead).
 */
export function checkReconcileBudget(schedule: ReplaySchedule, from: number, to: number): void {
  const count = schedule.count(from, to);
  if (count <= MAX_REPLAY_RECONCILES) return;
  throw new ReplayInputError(
    `the timer (${schedule.description}) would make ${count.toLocaleString('en-US')} reconciles over the trace's ${spanText(to - from)}; ` +
      `a replay makes at most ${MAX_REPLAY_RECONCILES.toLocaleString('en-US')} per target: give a longer period or replay a part of the trace`,
  );
}

const SPAN_UNITS: [ms: number, name: string][] = [[86_400_000, 'days'], [3_600_000, 'hours'], [60_000, 'minutes'], [1_000, 'seconds']];

function spanText(ms: number): string {
  const [size, name] = SPAN_UNITS.find(([unit]) => ms >= unit) ?? [1, 'ms'];
  const figure = (ms / size).toLocaleString('en-US', { maximumFractionDigits: 1 });
  return `${figure} ${figure === '1' && name !== 'ms' ? name.slice(0, -1) : name}`;
}

export async function replayTrace(config: DroverConfig, source: TraceSource, options: ReplayOptions, run: ReplayRun = {}): Promise<TargetReplayResult[]> {
  const targets = new Map(config.targets.map((t) => [t.name, t]));
  if (run.target !== undefined && !targets.has(run.target)) throw new ReplayInputError(`no target named "${run.target}" in the configuration`);
  const only = run.target ?? (config.targets.length === 1 ? config.targets[0]!.name : undefined);
  const replays = new Map<string, TargetReplay>();
  let start: number | undefined;
  let end: number | undefined;
  for await (const rows of batches(source)) {
    for (const row of rows) {
      start ??= row.at;
      checkReconcileBudget(options.schedule, start, row.at);
      const name = row.target ?? only;
      if (name === undefined) throw new ReplayInputError(`trace line ${row.line}: target: the configuration has ${config.targets.length} targets, so each row must name one (or give --target)`);
      const target: TargetConfig | undefined = targets.get(name);
      if (!target) throw new ReplayInputError(`trace line ${row.line}: target: no target named "${name}" in the configuration`);
      if (run.target !== undefined && name !== run.target) continue;
      let replay = replays.get(name);
      if (!replay) {
        replay = new TargetReplay(target, options, row.at, sizedPool(config, target));
        replays.set(name, replay);
      }
      const unknown = Object.keys(row.values ?? {}).find((column) => column !== 'load' && !target.load?.sources.some((s) => s.name === column));
      if (unknown !== undefined) throw new ReplayInputError(`trace line ${row.line}: ${unknown}: names no source of target "${name}" (its sources: ${(target.load?.sources ?? []).map((s) => s.name).join(', ') || 'none'}; a load column feeds them all)`);
      await replay.feed(row.at, row.load, row.values);
      end = row.at;
    }
  }
  if (end === undefined) throw new ReplayInputError(run.target ? `the trace has no rows for target "${run.target}"` : 'the trace has no rows');
  const results: TargetReplayResult[] = [];
  for (const replay of replays.values()) results.push(await replay.finish(end));
  return results;
}
