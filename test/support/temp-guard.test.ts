/** The run's temporary folder check: an entry left in it fails the run, naming it. */
import { mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import setup from './temp-guard.js';

const saved = { TMPDIR: process.env.TMPDIR, DROVER_SUITE_TMPDIR: process.env.DROVER_SUITE_TMPDIR, exitCode: process.exitCode };

afterEach(() => {
  for (const key of ['TMPDIR', 'DROVER_SUITE_TMPDIR'] as const) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  process.exitCode = saved.exitCode;
});

/** The guard as a run of its own starts it, inside this run's folder. */
function ownGuard(): { root: string; teardown: () => void } {
  delete process.env.DROVER_SUITE_TMPDIR;
  const teardown = setup()!;
  return { root: tmpdir(), teardown };
}

it('gives the run a temporary folder of its own and removes it, empty, without complaint', () => {
  const { root, teardown } = ownGuard();
  expect(path.basename(root)).toMatch(/^drover-suite-/);
  expect(setup()).toBeUndefined();
  teardown();
  expect(existsSync(root)).toBe(false);
  expect(process.exitCode).toBe(saved.exitCode);
});

it('fails the run when an entry is left, naming it, and still removes the folder', () => {
  const { root, teardown } = ownGuard();
  mkdirSync(path.join(root, 'drover-test-leftover'));
  expect(teardown).toThrow('the test run left 1 entry in the temporary folder: drover-test-leftover');
  expect(process.exitCode).toBe(1);
  expect(existsSync(root)).toBe(false);
});
