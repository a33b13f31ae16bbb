#!/usr/bin/env node
/**
 * What `npm start` runs: the demo (sim/demo.ts) on Azurite and the simulators. Development only:
 * it needs the dev dependencies (azurite, selfsigned) and is neither in the function app nor in
 * the `drover` bin. `npm start` bundles it with the command line (esbuild, into dist/start/),
 * which takes a moment where a full tsc build would take many seconds.
 *
 * Usage: node dist/start/main.js [--for <duration>] [--verbose] [--help]: the options of
 * `drover sim`, parsed by the very same command line, so both take and refuse the same values.
 */
// First: the command line bundled below must not take this program for itself.
import './embed-cli.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCli } from '../src/cli.js';
import { nodeCommand } from '../src/package-root.js';
import { runDemo } from './demo.js';

/** The command line next to this file: beside it in the bundle, in ../src after tsc. */
function cliCommand(): string | undefined {
  const candidates = ['./cli.js', '../src/cli.js'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  const found = candidates.find((file) => existsSync(file));
  return found && nodeCommand(found);
}

// A terminal or IDE that went away closes our output: that is no reason to crash mid-stop.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

const cli = cliCommand();
const code = await runCli(
  ['sim', ...process.argv.slice(2)],
  { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s), env: process.env },
  { module: { runDemo }, ...(cli ? { cliCommand: cli } : {}) },
);
// Stopped: whatever the SDKs keep open (sockets kept alive, retry timers) must not hold the process.
process.exit(code);
