/**
 * Each job handed its dependencies: outside the composition root (support/composition-root.ts)
 * no file imports the runtime module or looks a table up on it by name.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPOSITION_ROOT, outsideTheRoot, type SourceFile } from './support/composition-root.js';
import { ROOT, importsOf, sourceFiles } from './support/imports.js';

const files: SourceFile[] = ['src', 'functions'].flatMap(sourceFiles).map((file) => ({ path: file, imports: importsOf(file), text: readFileSync(path.join(ROOT, file), 'utf8') }));

describe('the composition root', () => {
  it('is the only place that imports the runtime module or looks a table up on it', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(outsideTheRoot(files)).toEqual([]);
  });

  it('names files and folders that exist, and each is used', () => {
    for (const { path: entry } of COMPOSITION_ROOT) {
      expect(files.some((f) => (entry.endsWith('/') ? f.path.startsWith(entry) : f.path === entry)), entry).toBe(true);
    }
  });
});

describe('the composition root check', () => {
  const file = (p: string, imports: string[] = [], text = ''): SourceFile => ({ path: p, imports, text });

  it('names a job that imports the runtime module, and one that looks a table up on the runtime', () => {
    const broken = [
      file('src/pool/forget.ts', ['src/runtime/runtime.ts', 'src/state/leases.ts']),
      file('src/status/status.ts', [], "const rows = await listRowPaged(rt.table('targets'), 'status');"),
    ];
    expect(outsideTheRoot(broken)).toEqual(['src/pool/forget.ts imports src/runtime/runtime.ts', 'src/status/status.ts looks a table up on the runtime']);
  });

  it('passes the root doing both, and a job handed its stores', () => {
    const fine = [
      file('src/runtime/app-runtime.ts', ['src/runtime/runtime.ts'], "rt.table('leases')"),
      file('src/cli/commands.ts', ['src/runtime/runtime.ts']),
      file('src/handlers/status-http.ts', ['src/runtime/runtime.ts']),
      file('functions/status.ts', ['src/runtime/app-runtime.ts']),
      file('src/cli/pause.ts', ['src/state/leases.ts'], 'pauseTargetRecord(deps.stores.targetRecords, target, change)'),
    ];
    expect(outsideTheRoot(fine)).toEqual([]);
  });
});
