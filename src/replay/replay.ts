/**
 * A replay of one load trace through every target it names: rows are dispatched to the
 * targets' replays as they stream in, and each replay ends at the trace's last instant.
 */
import type { DroverConfig, TargetConfig } from '../config/schema.js';
import { TargetReplay, type ReplayOptions, type TargetReplayResult } from './target-replay.js';
import type { TraceRow } from './trace.js';
import { sizedPool } from './pool-replay.js';

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

export async function replayTrace(config: DroverConfig, source: TraceSource, options: ReplayOptions, run: ReplayRun = {}): Promise<TargetReplayResult[]> {
  const targets = new Map(config.targets.map((t) => [t.name, t]));
  if (run.target !== undefined && !targets.has(run.target)) throw new ReplayInputError(`no target named "${run.target}" in the configuration`);
  const only = run.target ?? (config.targets.length === 1 ? config.targets[0]!.name : undefined);
  const replays = new Map<string, TargetReplay>();
  let end: number | undefined;
  for await (const rows of batches(source)) {
    for (const row of rows) {
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
      await replay.feed(row.at, row.load);
      end = row.at;
    }
  }
  if (end === undefined) throw new ReplayInputError(run.target ? `the trace has no rows for target "${run.target}"` : 'the trace has no rows');
  const results: TargetReplayResult[] = [];
  for (const replay of replays.values()) results.push(await replay.finish(end));
  return results;
}
