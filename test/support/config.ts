import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { tempDir } from './temp-dirs.js';

export { tempDir };

/** Writes a config file (YAML) and returns its path. */
export function writeConfig(doc: unknown, dir = tempDir(), name = 'drover.config.yaml'): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof doc === 'string' ? doc : stringify(doc));
  return file;
}

/** A storage section pointing at the suite's Azurite with a prefix of its own. */
export function azuriteStorage(prefix = `t${randomBytes(5).toString('hex')}`) {
  return { connection: inject('azuriteConnection'), prefix };
}

export const SUBSCRIPTION = '00000000-0000-0000-0000-000000000000';
