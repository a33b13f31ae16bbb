#!/usr/bin/env node
/**
 * `drover`: the command line. Exit codes: 0 done, 1 the pass recorded errors, 2 bad usage or
 * configuration.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, type Option } from 'commander';
import { MAX_LOAD, MAX_REPLICAS } from './limits.js';
import { parseDuration } from './config/duration.js';
import { MAX_DURATION_MS } from './config/fields.js';
import { MAX_DELAY_MS } from './queue/sender.js';
import { errorMessage } from './log.js';
import { parseDecimalLoad } from './load/load-number.js';
import { droverVersion } from './package-root.js';
import type { CliIO } from './cli/io.js';
import type { BundledDemo } from './cli/commands.js';
import { registerReplay } from './replay/cli-register.js';

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/**
 * The verbs, with the runtime and every SDK behind them, load only once a verb runs: `--help`
 * and usage errors then cost the process a fraction of its start-up.
 */
const verbs = () => import('./cli/commands.js');


const durationArg = (value: string) => {
  try {
    const ms = parseDuration(value);
    if (ms < 0) throw new Error('must not be negative');
    if (ms > MAX_DELAY_MS) throw new Error('at most 7 days (the queue cannot hide a message longer)');
    return ms;
  } catch (err) {
    throw new InvalidArgumentError(errorMessage(err));
  }
};

const budgetArg = (value: string) => {
  try {
    const ms = parseDuration(value);
    if (ms <= 0 || ms > MAX_DURATION_MS) throw new Error('expected a duration > 0 and at most 24h');
    return ms;
  } catch (err) {
    throw new InvalidArgumentError(errorMessage(err));
  }
};

const loadArg = (value: string) => {
  const n = parseDecimalLoad(value);
  if (n === undefined || !Number.isFinite(n)) throw new InvalidArgumentError('expected a decimal number ≥ 0 (e.g. 25 or 2.5e3)');
  if (n > MAX_LOAD) throw new InvalidArgumentError(`expected at most ${MAX_LOAD} (the load ceiling)`);
  return n;
};

const replicasArg = (value: string) => {
  const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(n <= MAX_REPLICAS)) throw new InvalidArgumentError(`expected a whole number from 0 to ${MAX_REPLICAS}`);
  return n;
};

/** A bad option value, said in one line naming the option: no usage text after it. */
class OptionValueError extends Error {
  override name = 'OptionValueError';
}

/**
 * Every option parser of every verb, wrapped so that a value it refuses is one line naming the
 * option (`--delay: invalid duration "5x": …`) instead of Commander's sentence and the whole
 * usage text: Commander passes any error but its own InvalidArgumentError through.
 */
function oneLineOptionErrors(command: Command): void {
  for (const option of command.options as Option[]) {
    const parse = option.parseArg;
    if (!parse) continue;
    option.parseArg = <T,>(value: string, previous: T) => {
      try {
        return parse(value, previous);
      } catch (err) {
        throw new OptionValueError(`${option.long ?? option.flags}: ${errorMessage(err)}`);
      }
    };
  }
  for (const sub of command.commands) oneLineOptionErrors(sub);
}

/** `demo`: the demo bundled with the command line by `npm start`, run by the `sim` verb. */
export async function runCli(argv: string[], io: CliIO, demo?: BundledDemo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('drover')
    .description('Serverless capacity controller for Azure VM Scale Sets and Kubernetes workloads')
    .version(droverVersion(), '--version', 'print the version')
    .option('--config <file>', 'configuration file (default: $DROVER_CONFIG, then drover.config.yaml)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .showHelpAfterError();
  const configFile = () => program.opts<{ config?: string }>().config;
  const run = (fn: () => Promise<number>) => async () => {
    exitCode = await fn();
  };

  registerPassVerbs(program, io, configFile, run);
  registerMachinesVerb(program, io, configFile, run);
  registerPauseVerbs(program, io, configFile, run);
  registerReplay(program, io, configFile, run);
  registerHostVerbs(program, io, configFile, run, demo);

  oneLineOptionErrors(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    return exitCodeOf(err, io);
  }
}

/** Runs a verb and keeps its exit code for `runCli` to return. */
type Run = (fn: () => Promise<number>) => () => Promise<void>;

/** `reconcile`, `status` and `enqueue`: one pass, what the state says, a pass asked for. */
function registerPassVerbs(program: Command, io: CliIO, configFile: () => string | undefined, run: Run): void {
  program
    .command('reconcile')
    .description('one pass over every pool and target')
    .option('--dry-run', 'decide and print, write nothing to ARM, Kubernetes or the inventory')
    .option('--json', 'print the pass report as JSON')
    .option('--budget <duration>', 'abort what is still running after this long (default 45s, as the timer)', budgetArg)
    .action(async function (this: Command) {
      const { commands } = await verbs();
      return run(() => commands.reconcile(io, configFile(), this.opts()))();
    });
  program
    .command('status')
    .description('pools with cache and instances, inventory, safety switch, targets, probes, recent decisions')
    .option('--json', 'print one JSON object')
    .action(async function (this: Command) {
      const { commands } = await verbs();
      return run(() => commands.status(io, configFile(), this.opts()))();
    });
  program
    .command('enqueue')
    .description('force a reconcile of one pool or target')
    .option('--target <name>', 'the target to reconcile')
    .option('--pool <name>', 'the pool to reconcile')
    .option('--delay <duration>', 'deliver after this long (e.g. 30s)', durationArg)
    .option('--load <n>', 'a pushed load value for the target', loadArg)
    .action(async function (this: Command) {
      const o = this.opts<{ target?: string; pool?: string; delay?: number; load?: number }>();
      const { commands, CliUsageError: UsageError } = await verbs();
      if (!!o.target === !!o.pool) throw new UsageError('give exactly one of --target NAME or --pool NAME');
      if (o.load !== undefined && !o.target) throw new UsageError('--load applies to targets only');
      return run(() => commands.enqueue(io, configFile(), o))();
    });
}

/** `machines forget`: inventory rows removed by hand. */
function registerMachinesVerb(program: Command, io: CliIO, configFile: () => string | undefined, run: Run): void {
  program
    .command('machines')
    .description('inspect and repair the inventory')
    .command('forget')
    .description('remove inventory rows: one machine by id, or every row whose VM ARM does not list (--gone)')
    .requiredOption('--pool <name>', 'the pool whose inventory holds the rows')
    .argument('[id]', 'the machine as status names it: rg/vmss/3, its VM name (vmss_3) or its full azure:// id')
    .option('--force', 'forget the machine even though ARM lists its VM as running or creating')
    .option('--gone', 'forget every row whose VM ARM does not list')
    .option('--dry-run', 'with --gone: list the rows, remove nothing')
    .action(async function (this: Command, id: string | undefined) {
      const o = this.opts<{ pool: string; force?: boolean; gone?: boolean; dryRun?: boolean }>();
      const { commands, CliUsageError: UsageError } = await verbs();
      if (!!id === !!o.gone) throw new UsageError('give exactly one of ID or --gone');
      if (o.dryRun && !o.gone) throw new UsageError('--dry-run applies to --gone only');
      if (o.force && o.gone) throw new UsageError('--force applies to one ID only');
      const request = id ? { kind: 'one' as const, id, force: !!o.force } : { kind: 'gone' as const, dryRun: !!o.dryRun };
      return run(() => commands.forget(io, configFile(), o.pool, request))();
    });
}

/** `pause` and `resume`: a target held by the operator, and let go. */
function registerPauseVerbs(program: Command, io: CliIO, configFile: () => string | undefined, run: Run): void {
  program
    .command('pause')
    .description('pause a target: no scale written (or one direction only, or pinned at --replicas), on every instance at its next reconcile')
    .argument('<target>', 'the target to pause')
    .option('--replicas <n>', 'hold the target at this many replicas', replicasArg)
    .option('--scale-in', 'pause scale-in only: nothing is lowered')
    .option('--scale-out', 'pause scale-out only: nothing is raised')
    .option('--only <direction>', 'the same as --scale-in or --scale-out: "scale-in" or "scale-out"')
    .action(async function (this: Command, target: string) {
      const o = this.opts<{ replicas?: number; scaleIn?: boolean; scaleOut?: boolean; only?: string }>();
      const { commands, CliUsageError: UsageError } = await verbs();
      if (o.only !== undefined && o.only !== 'scale-in' && o.only !== 'scale-out') throw new UsageError('--only takes "scale-in" or "scale-out"');
      const scaleIn = o.scaleIn === true || o.only === 'scale-in';
      const scaleOut = o.scaleOut === true || o.only === 'scale-out';
      if (scaleIn && scaleOut) throw new UsageError('give at most one of --scale-in and --scale-out');
      if (o.replicas !== undefined && (scaleIn || scaleOut)) throw new UsageError('--replicas pins the target: it takes no direction');
      const mode = scaleIn ? ('scale-in' as const) : scaleOut ? ('scale-out' as const) : ('all' as const);
      return run(() => commands.pause(io, configFile(), target, { kind: 'pause', mode, ...(o.replicas !== undefined ? { replicas: o.replicas } : {}) }))();
    });
  program
    .command('resume')
    .description('lift a drover pause (not paused: true in the configuration)')
    .argument('<target>', 'the target to resume')
    .action(async function (this: Command, target: string) {
      const { commands } = await verbs();
      return run(() => commands.pause(io, configFile(), target, { kind: 'resume' }))();
    });
}

/** `run` and `sim`: the local host, alone or with Azurite, the simulators and the demo. */
function registerHostVerbs(program: Command, io: CliIO, configFile: () => string | undefined, run: Run, demo: BundledDemo | undefined): void {
  program
    .command('run')
    .description("the local host: the timer and the queue workers, with host.json's queue settings")
    .option('--verbose', 'log every invocation and routine decision, not only changes')
    .action(async function (this: Command) {
      const { commands } = await verbs();
      return run(() => commands.run(io, configFile(), this.opts<{ verbose?: boolean }>()))();
    });
  program
    .command('sim')
    .description('Azurite, the simulators and the local host on an example configuration (what npm start runs)')
    .option('--for <duration>', 'stop by itself after this long (default: run until Ctrl+C)', durationArg)
    .option('--verbose', 'every log line of every pass, not only the changes')
    .option('--record <dir>', "record every exchange with the ARM and Kubernetes simulators in this folder, for `npm run check:api`")
    .action(async function (this: Command) {
      const o = this.opts<{ for?: number; verbose?: boolean; record?: string }>();
      const { commands } = await verbs();
      return run(() => commands.sim(io, { forMs: o.for, verbose: o.verbose === true, ...(o.record ? { recordDir: o.record } : {}) }, demo))();
    });
}

/** The exit code for what parsing or a verb threw, the error said in one line on stderr (Commander printed its own). */
async function exitCodeOf(err: unknown, io: CliIO): Promise<number> {
  if (err instanceof CommanderError) {
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof OptionValueError) {
    io.stderr(`error: ${err.message}\n`);
    return EXIT.usage;
  }
  // Any other error came from a verb, so these modules are loaded already.
  const [{ CliUsageError: UsageError }, { isConfigError }, { StorageConfigError }] = await Promise.all([
    verbs(),
    import('./config/load.js'),
    import('./state/storage.js'),
  ]);
  if (isConfigError(err)) {
    io.stderr(`${err.message}\n`);
    return EXIT.usage;
  }
  if (err instanceof StorageConfigError) {
    io.stderr(`error: ${err.message}\n`);
    return EXIT.usage;
  }
  if (err instanceof UsageError) {
    io.stderr(`error: ${err.message}\n`);
    return EXIT.usage;
  }
  io.stderr(`error: ${errorMessage(err)}\n`);
  return EXIT.failed;
}

/**
 * Set by a program that bundles the command line and calls runCli itself (sim/main.ts, what
 * `npm start` runs): in a bundle every module's import.meta.url is the bundle's, so the check
 * below would take that program for the command line.
 */
export const EMBEDDED_CLI = Symbol.for('drover.cli.embedded');

function isMain(): boolean {
  if ((globalThis as Record<symbol, unknown>)[EMBEDDED_CLI]) return false;
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const code = await runCli(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
  });
  process.exitCode = code;
}
