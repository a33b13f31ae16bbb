/** The map of src/ that docs/architecture.md opens with stays true: every folder on it, none that is gone, in layer order. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/imports.js';
import { SCALER_STAGES } from './support/layers.js';
import { mapProblems, readMap } from './support/map.js';

/** Every folder under src/, repository-relative with a trailing slash. */
function folders(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const rel = `${dir}${entry.name}/`;
      return [rel, ...folders(rel)];
    });
}

describe('the map of src/ in docs/architecture.md', () => {
  const map = readMap(readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8'));

  it('opens the document', () => {
    expect(map.heading).toBe('A map of `src/`');
  });

  it('names every folder of src/ and none that is not there, in layer order', () => {
    expect(map.folders.length).toBeGreaterThan(20);
    expect(mapProblems(map.folders, folders('src/'))).toEqual([]);
  });
});

describe("the scaler's stages", () => {
  it('are the folders of src/scaler/, each opening with a comment on what belongs there', () => {
    expect(folders('src/scaler/').sort()).toEqual([...SCALER_STAGES].sort());
    for (const [i, stage] of SCALER_STAGES.entries()) {
      const opening = readFileSync(path.join(ROOT, stage, 'index.ts'), 'utf8');
      expect(opening, stage).toMatch(new RegExp(`^/\\*\\*\\n \\* Stage ${i + 1}, `));
    }
  });
});

describe('the map check', () => {
  const layers = [
    { name: 'top', paths: ['src/cli/'] },
    { name: 'bottom', paths: ['src/state/', 'src/scaler/'] },
  ];

  it('reads the folders of the first section only', () => {
    const doc = '# Title\n\n## A map\n\n- `src/cli/` — the CLI\n- `src/state/` — storage\n- the files at the top\n\n## Later\n\n- `src/gone/` — not the map\n';
    expect(readMap(doc)).toEqual({ heading: 'A map', folders: ['src/cli/', 'src/state/'] });
  });

  it('names a folder missing from the map, one the map names that is gone, one named twice, and one out of layer order', () => {
    expect(mapProblems(['src/state/', 'src/cli/', 'src/old/', 'src/cli/'], ['src/cli/', 'src/state/', 'src/scaler/'], layers)).toEqual([
      'src/scaler/ is not on the map',
      'the map names src/old/, which is not a folder of src/',
      'the map names src/cli/ twice',
      'src/cli/ is listed below a lower layer (bottom) than its own (top)',
      'src/cli/ is listed below a lower layer (bottom) than its own (top)',
    ]);
  });

  it('passes a map that names every folder once, in layer order', () => {
    expect(mapProblems(['src/cli/', 'src/state/', 'src/scaler/'], ['src/scaler/', 'src/cli/', 'src/state/'], layers)).toEqual([]);
  });
});
