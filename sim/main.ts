#!/usr/bin/env node
/**
 * What `npm start` runs: the demo (sim/demo.ts) on Azurite and the simulators. Development only:
 * it needs the dev dependencies (azurite, selfsigned) and is neither in the function app nor in
 * the `drover` bin. `npm start` bundles it with the command line (esbuild, into dist/start/),
 * which takes a moment where a full tsc build would take many seconds.
 *
 * Usage: node dist/start/main.js [--for <duration>] [--verbose]
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stopRequest } from '../src/cli/io.js';
import { parseDuration } from '../src/config/duration.js';
import { errorMessage } from '../src/log.js';
import { nodeCommand } from '../src/package-root.js';
import { runDemo, type DemoOptions } from './demo.js';

function options(argv: string[]): DemoOptions {
  const { values } = parseArgs({ args: argv, options: { for: { type: 'string' }, verbose: { type: 'boolean' } } });
  return {
    ...(values.for !== undefined ? { forMs: parseDuration(values.for) } : {}),
    verbose: values.verbose === true,
  };
}

/** The command line next to this file: beside it in the bundle, in ../src after tsc. */
function cliCommand(): string | undefined {
  const candidates = ['./cli.js', '../src/cli.js'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  const found = candidates.find((file) => existsSync(file));
  return found && nodeCommand(found);
}

// A terminal or IDE that went away closes our output: that is no reason to crash mid-stop.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

const stop = stopRequest();
let code: number;
try {
  const cli = cliCommand();
  code = await runDemo(
    { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s), env: process.env },
    { ...options(process.argv.slice(2)), signal: stop.signal, ...(cli ? { cliCommand: cli } : {}) },
  );
} catch (err) {
  process.stderr.write(`error: ${errorMessage(err)}\n`);
  code = 2;
}
// Stopped: whatever the SDKs keep open (sockets kept alive, retry timers) must not hold the process.
process.exit(code);
