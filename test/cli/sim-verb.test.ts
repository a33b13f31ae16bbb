import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { importDemo } from '../../src/cli/commands.js';
import { tempDir } from '../support/temp-dirs.js';

it('drover sim finds no demo where sim/ is absent (an installed package), and says so instead of failing', async () => {
  const dir = tempDir('drover-no-sim-');
  expect(await importDemo(pathToFileURL(path.join(dir, 'sim', 'demo.js')))).toBeUndefined();
});

it('a demo module that is there but broken is not mistaken for an absent one', async () => {
  const dir = tempDir('drover-bad-sim-');
  const file = path.join(dir, 'demo.mjs');
  writeFileSync(file, "throw new Error('broken demo');\n");
  await expect(importDemo(pathToFileURL(file))).rejects.toThrow(/broken demo/);
});
