// The configuration sequence a host runs with (src/config/sequence.ts): the build's stamp beside
// the configuration, else the file's modification time; a stamp that is there but broken stops
// the host rather than letting it guess.
import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigSequence, SEQUENCE_FILE } from '../../src/config/sequence.js';
import { tempDir, writeConfig } from '../support/config.js';

describe('the configuration sequence', () => {
  it("is the build's stamp beside the configuration when there is one", () => {
    const file = writeConfig({ pools: [] });
    writeFileSync(path.join(path.dirname(file), SEQUENCE_FILE), JSON.stringify({ sequence: 1_764_000_000_123 }));
    expect(readConfigSequence(file)).toEqual({ seq: 1_764_000_000_123, source: 'build' });
  });

  it("is the file's modification time in ms without one: of two local files, the one written last is newer", () => {
    const dir = tempDir();
    const older = writeConfig({ pools: [] }, dir, 'a.yaml');
    const newer = writeConfig({ pools: [] }, dir, 'b.yaml');
    utimesSync(older, new Date('2026-01-01T00:00:00.250Z'), new Date('2026-01-01T00:00:00.250Z'));
    utimesSync(newer, new Date('2026-01-01T00:00:01.500Z'), new Date('2026-01-01T00:00:01.500Z'));
    expect(readConfigSequence(older)).toEqual({ seq: Date.parse('2026-01-01T00:00:00.250Z'), source: 'file time' });
    expect(readConfigSequence(newer).seq).toBeGreaterThan(readConfigSequence(older).seq);
    expect(readConfigSequence(path.join(dir, 'missing.yaml'))).toEqual({ seq: 0, source: 'none' });
  });

  it('refuses a stamp that is not a whole number of milliseconds', () => {
    for (const sequence of ['1764000000000', -1, 1.5, 1e300]) {
      const file = writeConfig({ pools: [] });
      writeFileSync(path.join(path.dirname(file), SEQUENCE_FILE), JSON.stringify({ sequence }));
      expect(() => readConfigSequence(file)).toThrow(/"sequence" must be a whole number of milliseconds/);
    }
  });
});
