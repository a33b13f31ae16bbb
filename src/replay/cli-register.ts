/**
 * How `drover replay` is declared on the command line: its options and their parsers. The
 * command itself (src/replay/cli-verb.ts, with the runtime and the replay behind it) loads only
 * when the verb runs, so that `drover --help` does not load it.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CliIO } from '../cli/io.js';
import { parseDuration } from '../config/duration.js';
import { errorMessage } from '../log.js';
import { DEFAULT_REPLAY_SCHEDULE, parseReplaySchedule } from './schedule.js';
import type { ReplayOpts } from './cli-verb.js';
import { DEFAULT_CREATION_DELAY_MS, DEFAULT_START_DELAY_MS } from './pool-delays.js';

const argument =
  <T,>(parse: (text: string) => T) =>
  (text: string): T => {
    try {
      return parse(text);
    } catch (err) {
      throw new InvalidArgumentError(errorMessage(err));
    }
  };

const nonNegativeDuration = argument((text) => {
  const ms = parseDuration(text);
  if (ms < 0) throw new Error('must not be negative');
  return ms;
});

const wholeNumber = argument((text) => {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < 0) throw new Error('expected a whole number ≥ 0');
  return n;
});

export function registerReplay(program: Command, io: CliIO, configFile: () => string | undefined, run: (fn: () => Promise<number>) => () => Promise<void>): void {
  program
    .command('replay')
    .description('the production decisions over a load trace on a virtual clock: timeline, summary, HTML report')
    .option('--trace <file>', 'CSV (time,target,load) or JSON lines with the same fields')
    .option('--from-history <duration>', 'replay the load samples kept in the history table, at their own times, over this long (e.g. 24h)', nonNegativeDuration)
    .option('--target <name>', 'only this target')
    .option('--ready-delay <duration>', 'how long a new replica takes to become ready', nonNegativeDuration, 0)
    // The defaults are shown as written, not in milliseconds.
    .addOption(
      new Option('--creation-delay <duration>', "a Pool target's pool: how long a VM of a capacity raise takes to run")
        .argParser(nonNegativeDuration)
        .default(DEFAULT_CREATION_DELAY_MS, '3m'),
    )
    .addOption(
      new Option('--start-delay <duration>', "a Pool target's pool: how long a parked VM (warm.max) takes to run once started")
        .argParser(nonNegativeDuration)
        .default(DEFAULT_START_DELAY_MS, '40s'),
    )
    .option('--initial-scale <n>', "the workload's scale at the start (default: the target's minScale)", wholeNumber)
    // The default is shown as written, not as the parsed schedule object.
    .addOption(
      new Option('--schedule <schedule>', 'the timer: NCRONTAB or a period such as 30s')
        .argParser(argument(parseReplaySchedule))
        .default(parseReplaySchedule(DEFAULT_REPLAY_SCHEDULE), DEFAULT_REPLAY_SCHEDULE),
    )
    .option('--compare <config>', 'replay a second configuration over the same trace, side by side')
    .option('--compare-schedule <schedule>', "the second configuration's timer (default: --schedule)", argument(parseReplaySchedule))
    .option('--json', 'print { targets: [ { name, summary, timeline } ] } with ISO times')
    .option('--out <file>', 'write a self-contained HTML report')
    .action(function (this: Command) {
      const opts = this.opts<ReplayOpts>();
      return run(async () => (await import('./cli-verb.js')).replayCommand(io, configFile(), opts))();
    });
}

