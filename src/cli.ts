#!/usr/bin/env node
/**
 * `drover`: the command line. Exit codes: 0 done, 1 the pass recorded errors, 2 bad usage or
 * configuration.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { isConfigError } from './config/load.js';
import { StorageConfigError } from './state/storage.js';
import { parseDuration } from './config/duration.js';
import { MAX_DELAY_MS } from './queue/sender.js';
import { errorMessage } from './log.js';
import { commands, CliUsageError as UsageError } from './cli/commands.js';
import type { CliIO } from './cli/io.js';
import { registerReplay } from './replay/cli-verb.js';

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;


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

const loadArg = (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number ≥ 0');
  return n;
};

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('drover')
    .description('Serverless capacity controller for Azure VM Scale Sets and Kubernetes workloads')
    .option('--config <file>', 'configuration file (default: $DROVER_CONFIG, then drover.config.yaml)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .showHelpAfterError();
  const configFile = () => program.opts<{ config?: string }>().config;
  const run = (fn: () => Promise<number>) => async () => {
    exitCode = await fn();
  };

  program
    .command('reconcile')
    .description('one pass over every pool and target')
    .option('--dry-run', 'decide and print, write nothing to ARM, Kubernetes or the inventory')
    .option('--json', 'print the pass report as JSON')
    .action(function (this: Command) {
      return run(() => commands.reconcile(io, configFile(), this.opts()))();
    });
  program
    .command('status')
    .description('pools with cache and instances, inventory, safety switch, targets, probes, recent decisions')
    .option('--json', 'print one JSON object')
    .action(function (this: Command) {
      return run(() => commands.status(io, configFile(), this.opts()))();
    });
  program
    .command('enqueue')
    .description('force a reconcile of one pool or target')
    .option('--target <name>', 'the target to reconcile')
    .option('--pool <name>', 'the pool to reconcile')
    .option('--delay <duration>', 'deliver after this long (e.g. 30s)', durationArg)
    .option('--load <n>', 'a pushed load value for the target', loadArg)
    .action(function (this: Command) {
      const o = this.opts<{ target?: string; pool?: string; delay?: number; load?: number }>();
      if (!!o.target === !!o.pool) throw new UsageError('give exactly one of --target NAME or --pool NAME');
      if (o.load !== undefined && !o.target) throw new UsageError('--load applies to targets only');
      return run(() => commands.enqueue(io, configFile(), o))();
    });
  program
    .command('machines')
    .description('inspect and repair the inventory')
    .command('forget')
    .description('remove inventory rows: one machine by id, or every row whose VM ARM does not list (--gone)')
    .requiredOption('--pool <name>', 'the pool whose inventory holds the rows')
    .argument('[id]', 'the provider id of the machine')
    .option('--force', 'forget the machine even though ARM lists its VM as running or creating')
    .option('--gone', 'forget every row whose VM ARM does not list')
    .option('--dry-run', 'with --gone: list the rows, remove nothing')
    .action(function (this: Command, id: string | undefined) {
      const o = this.opts<{ pool: string; force?: boolean; gone?: boolean; dryRun?: boolean }>();
      if (!!id === !!o.gone) throw new UsageError('give exactly one of ID or --gone');
      if (o.dryRun && !o.gone) throw new UsageError('--dry-run applies to --gone only');
      if (o.force && o.gone) throw new UsageError('--force applies to one ID only');
      const request = id ? { kind: 'one' as const, id, force: !!o.force } : { kind: 'gone' as const, dryRun: !!o.dryRun };
      return run(() => commands.forget(io, configFile(), o.pool, request))();
    });
  registerReplay(program, io, configFile, run);
  program
    .command('run')
    .description("the local host: the timer and the queue workers, with host.json's queue settings")
    .action(run(() => commands.run(io, configFile())));
  program
    .command('sim')
    .description('Azurite, the simulators and the local host on an example configuration (what npm start runs)')
    .option('--for <duration>', 'stop by itself after this long (default: run until Ctrl+C)', durationArg)
    .option('--status-every <duration>', 'print the status view this often', durationArg)
    .action(function (this: Command) {
      const o = this.opts<{ for?: number; statusEvery?: number }>();
      return run(() => commands.sim(io, { forMs: o.for, statusEveryMs: o.statusEvery }))();
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
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
}

function isMain(): boolean {
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
