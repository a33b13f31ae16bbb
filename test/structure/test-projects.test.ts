/**
 * The unit list in vitest.config.ts: every entry names a test file that exists, and none of them
 * imports what starts I/O (the simulators, or the support modules that reach Azurite). The
 * no-io setup catches the rest at run time.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNIT_FILES } from '../../vitest.config.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const IO_IMPORTS = /from '[./]*(sim\/|test\/support\/(world|arm|storage|config)\.js|support\/(world|arm|storage|config)\.js)/;

describe('the unit project', () => {
  it('lists test files that exist', () => {
    expect(UNIT_FILES.filter((file) => !existsSync(path.join(ROOT, file)))).toEqual([]);
    expect(UNIT_FILES.every((file) => file.endsWith('.test.ts'))).toBe(true);
  });

  it('lists no file that imports a simulator or the storage support', () => {
    const offenders = UNIT_FILES.filter((file) => IO_IMPORTS.test(readFileSync(path.join(ROOT, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the import check sees such an import', () => {
    expect(IO_IMPORTS.test("import { armWorld } from '../support/arm.js';")).toBe(true);
    expect(IO_IMPORTS.test("import { startKubernetesSim } from '../../sim/kubernetes/server.js';")).toBe(true);
    expect(IO_IMPORTS.test("import { memoryTable } from '../support/memory-table.js';")).toBe(false);
  });
});
