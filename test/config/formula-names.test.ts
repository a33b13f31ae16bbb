/**
 * A formula calls only the documented functions: a name Object.prototype carries
 * (`__proto__`, `constructor`, `toString`, …) is refused at config load, exit 2 naming the
 * formula's path and the name, and `drover replay` refuses it the same way (issue 31).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, writeConfig } from '../support/config.js';
import { cli, k8s, target } from './fixtures.js';

const PROTOTYPE_NAMES: [string, string][] = [
  ['__proto__', '__proto__(a)'],
  ['constructor', 'constructor(a)'],
  ['toString', 'toString(a)'],
  ['__defineGetter__', '__defineGetter__(a, b)'],
  ['valueOf', 'valueOf(a)'],
  ['hasOwnProperty', 'hasOwnProperty(a)'],
];

const load = (formula: string) => ({
  sources: [
    { name: 'a', source: 'push', targetPerReplica: 1 },
    { name: 'b', source: 'http', url: 'http://127.0.0.1:1/b', targetPerReplica: 1 },
  ],
  combine: { formula, targetPerReplica: 1 },
});

describe('a formula calling a name of Object.prototype', () => {
  it.each(PROTOTYPE_NAMES)('"%s" is refused at config load, exit 2 naming the formula', async (name, formula) => {
    const file = writeConfig({ kubernetes: k8s, targets: [target({ minScale: 1, load: load(formula) })] });
    const { code, stderr } = await cli(['--config', file, 'status']);
    expect(code).toBe(2);
    expect(stderr).toContain(`targets[0].load.combine.formula: unsupported function "${name}"`);
  });

  it.each(PROTOTYPE_NAMES)('"%s" is refused by drover replay before it runs, exit 2 naming the formula', async (name, formula) => {
    const dir = tempDir();
    const file = writeConfig({ targets: [target({ minScale: 1, load: load(formula) })] }, dir);
    const trace = path.join(dir, 'trace.csv');
    writeFileSync(trace, 'time,load\n0,5\n60,5\n');
    const { code, stdout, stderr } = await cli(['--config', file, 'replay', '--trace', trace]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`targets[0].load.combine.formula: unsupported function "${name}"`);
  });
});
