/**
 * A passing test prints nothing: Drover logs through the logger it is given (silent in tests),
 * so a test that writes to the console, itself or through the code under test, fails here and
 * names what was written. The writes are swallowed, so the run's output stays vitest's own.
 */
import nodeConsole from 'node:console';
import { afterAll, afterEach } from 'vitest';

const METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

let written: string[] = [];

// Vitest gives the tests a console of its own; `node:console` is the process's, which a module
// that imports it (scripts/build.mjs) writes to: both are caught.
for (const target of new Set([console, nodeConsole])) {
  for (const method of METHODS) {
    target[method] = (...args: unknown[]) => {
      written.push(`console.${method}: ${args.map(String).join(' ').slice(0, 200)}`);
    };
  }
}

/** Fails with what was written since the last check: a test's own lines, or a hook's before it. */
function check(): void {
  const lines = takeConsoleWrites();
  if (lines.length > 0) {
    throw new Error(`the test wrote to the console (route it through the injected logger):\n${lines.join('\n')}`);
  }
}

afterEach(check);
// What a file's last afterAll hooks write is caught at the end of the file.
afterAll(check);

/** What was written to the console since the last check (and forgets it), for the guard's own test. */
export function takeConsoleWrites(): string[] {
  const lines = written;
  written = [];
  return lines;
}
