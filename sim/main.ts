#!/usr/bin/env node
/**
 * What `npm start` runs: the demo (sim/demo.ts) on Azurite and the simulators. Development only:
 * it needs the dev dependencies (azurite, selfsigned) and is neither in the function app nor in
 * the `drover` bin.
 *
 * Usage: node dist/sim/main.js [--for <duration>] [--status-every <duration>]
 */
import { parseArgs } from 'node:util';
import { parseDuration } from '../src/config/duration.js';
import { errorMessage } from '../src/log.js';
import { runDemo, type DemoOptions } from './demo.js';

function options(argv: string[]): DemoOptions {
  const { values } = parseArgs({ args: argv, options: { for: { type: 'string' }, 'status-every': { type: 'string' } } });
  return {
    ...(values.for !== undefined ? { forMs: parseDuration(values.for) } : {}),
    ...(values['status-every'] !== undefined ? { statusEveryMs: parseDuration(values['status-every']) } : {}),
  };
}

try {
  process.exitCode = await runDemo(
    { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s), env: process.env },
    options(process.argv.slice(2)),
  );
} catch (err) {
  process.stderr.write(`error: ${errorMessage(err)}\n`);
  process.exitCode = 2;
}
