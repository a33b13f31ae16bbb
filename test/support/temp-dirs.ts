/**
 * Temporary folders of a test file, removed once the file has run (clean-temp-dirs.ts, a setup
 * file of both projects), so no test needs to remember to.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made = new Set<string>();

export function tempDir(prefix = 'drover-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
