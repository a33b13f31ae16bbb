/**
 * Global setup: the run gets a temporary folder of its own (TMPDIR, which os.tmpdir() and every
 * child process read), and fails at the end if anything is left in it. A private folder rather
 * than a before/after look at the system's one, so other runs on the machine cannot be mistaken
 * for this one's leftovers.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Set while a run owns the folder: each project inherits this setup, and the first one keeps it. */
const OWNED = 'DROVER_SUITE_TMPDIR';

export default function setup() {
  if (process.env[OWNED]) return undefined;
  const before = process.env.TMPDIR;
  const root = mkdtempSync(path.join(tmpdir(), 'drover-suite-'));
  process.env.TMPDIR = root;
  process.env[OWNED] = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    delete process.env[OWNED];
    const left = readdirSync(root);
    rmSync(root, { recursive: true, force: true });
    if (left.length > 0) {
      // Vitest reports an error thrown here but still exits 0: the exit code is set as well.
      process.exitCode = 1;
      throw new Error(`the test run left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the temporary folder: ${left.slice(0, 20).join(', ')}${left.length > 20 ? ', …' : ''}`);
    }
  };
}
