/**
 * A passing test prints nothing: Drover logs through the logger it is given (silent in tests),
 * so a test that writes to the console, itself or through the code under test, fails here and
 * names what was written. The writes are swallowed, so the run's output stays vitest's own.
 */
import { afterEach, beforeEach } from 'vitest';

const METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

let written: string[] = [];

for (const method of METHODS) {
  console[method] = (...args: unknown[]) => {
    written.push(`console.${method}: ${args.map(String).join(' ').slice(0, 200)}`);
  };
}

beforeEach(() => {
  written = [];
});

afterEach(() => {
  const lines = takeConsoleWrites();
  if (lines.length > 0) {
    throw new Error(`the test wrote to the console (route it through the injected logger):\n${lines.join('\n')}`);
  }
});

/** What was written to the console since the test began (and forgets it), for the guard's own test. */
export function takeConsoleWrites(): string[] {
  const lines = written;
  written = [];
  return lines;
}
