/**
 * `drover replay`: the production decisions over a load trace on a virtual clock. Registered
 * on the command line by `registerReplay` (cli-register.ts), which loads this module only when
 * the verb runs; everything it does lives here and in src/replay.
 *
 * Exit codes as the rest of the CLI: 0 done, 2 bad usage, configuration or trace (a line that
 * does not parse, a target not in the configuration, times going backwards).
 */
import { writeFile } from 'node:fs/promises';
import { CliUsageError } from '../cli/commands.js';
import type { CliIO } from '../cli/io.js';
import { loadConfig, resolveConfigFile } from '../config/load.js';
import type { DroverConfig } from '../config/schema.js';
import { errorMessage } from '../log.js';
import { createRuntime } from '../runtime/runtime.js';
import { resolveStorageLocation } from '../state/storage.js';
import { readHistoryTrace } from './history-source.js';
import { renderHtmlReport } from './html.js';
import { checkReconcileBudget, replayTrace, ReplayInputError, type TraceSource } from './replay.js';
import { renderSummaries, replayJson, type ReplayRunResult } from './report.js';
import { renderPoolTimelines } from './pool-report.js';
import type { ReplaySchedule } from './schedule.js';
import { renderTimelines } from './timeline-text.js';
import { readTraceFile, traceEnds, TraceError, type TraceRow } from './trace.js';

export interface ReplayOpts {
  trace?: string;
  fromHistory?: number;
  target?: string;
  readyDelay: number;
  /** A Pool target's VMs: from a capacity raise to running, and from a start (warm buffer) to running. */
  creationDelay: number;
  startDelay: number;
  initialScale?: number;
  schedule: ReplaySchedule;
  compare?: string;
  compareSchedule?: ReplaySchedule;
  json?: boolean;
  out?: string;
}

export async function replayCommand(io: CliIO, configFileArg: string | undefined, o: ReplayOpts): Promise<number> {
  if (!!o.trace === (o.fromHistory !== undefined)) throw new CliUsageError('give exactly one of --trace FILE or --from-history DURATION');
  const configFile = resolveConfigFile(configFileArg, io.env);
  // A replay reaches no cluster and no scale set: it needs neither section.
  const config = await loadConfig(configFile, { offline: true });
  const other = o.compare ? await loadConfig(resolveConfigFile(o.compare), { offline: true }) : undefined;
  const history = o.fromHistory !== undefined ? await historyRows(io, configFile, config, o.target, o.fromHistory) : undefined;
  // A file is streamed once per configuration; history rows are already in memory.
  const rows = (): TraceSource => history ?? readTraceFile(o.trace!);
  try {
    await checkBudgetAhead(o, history);
    const options = { readyDelayMs: o.readyDelay, creationDelayMs: o.creationDelay, startDelayMs: o.startDelay, ...(o.initialScale !== undefined ? { initialScale: o.initialScale } : {}) };
    const run = { ...(o.target ? { target: o.target } : {}) };
    const main: ReplayRunResult = { config: configFileArg ?? configFile, targets: await replayTrace(config, rows(), { ...options, schedule: o.schedule }, run) };
    const compare: ReplayRunResult | undefined = other && {
      config: o.compare!,
      targets: await replayTrace(other, rows(), { ...options, schedule: o.compareSchedule ?? o.schedule }, run),
    };
    if (o.json) for (const chunk of replayJson(main, compare)) io.stdout(chunk);
    else {
      io.stdout(renderSummaries(main, compare));
      for (const chunk of renderTimelines(main, compare)) io.stdout(chunk);
      for (const chunk of renderPoolTimelines(main, compare)) io.stdout(chunk);
    }
    if (o.out) {
      await writeFile(o.out, await renderHtmlReport(compare ? [main, compare] : [main]));
      if (!o.json) io.stdout(`report written to ${o.out}\n`);
    }
    return 0;
  } catch (err) {
    if (err instanceof TraceError || err instanceof ReplayInputError) throw new CliUsageError(err.message);
    if (isMissingFile(err)) throw new CliUsageError(`cannot read the trace: ${errorMessage(err)}`);
    throw err;
  }
}

/** The timers' work weighed before any, over the trace's first and last times (the replay checks again as rows come). */
async function checkBudgetAhead(o: ReplayOpts, history: readonly TraceRow[] | undefined): Promise<void> {
  const ends = history ? (history.length > 0 ? { first: history[0]!.at, last: history.at(-1)!.at } : undefined) : await traceEnds(o.trace!);
  if (!ends) return;
  checkReconcileBudget(o.schedule, ends.first, ends.last);
  if (o.compare) checkReconcileBudget(o.compareSchedule ?? o.schedule, ends.first, ends.last);
}

async function historyRows(io: CliIO, configFile: string, config: DroverConfig, target: string | undefined, windowMs: number): Promise<TraceRow[]> {
  if (target !== undefined && !config.targets.some((t) => t.name === target)) throw new CliUsageError(`no target named "${target}" in the configuration`);
  // Only storage is reached: the runtime takes the configuration as loaded, sections absent or not.
  const rt = await createRuntime({ configFile, config, env: io.env });
  const location = resolveStorageLocation(config.storage, io.env);
  return readHistoryTrace({ location, prefix: rt.storage.prefix, credential: rt.azureCredential }, target ? [target] : config.targets.map((t) => t.name), rt.clock.now(), windowMs);
}

function isMissingFile(err: unknown): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === 'ENOENT';
}
