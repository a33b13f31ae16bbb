/**
 * One handler layer: functions/*.ts only register a handler of src/handlers/ with the Functions
 * host, and the table the local host runs from names exactly the functions that are registered.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registrations } from '../../src/handlers/registrations.js';
import { importsOf, sourceFiles } from './support/imports.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const functionFiles = readdirSync(path.join(ROOT, 'functions')).filter((f) => f.endsWith('.ts')).sort();

describe('functions/', () => {
  it.each(functionFiles)('%s is under 25 lines and registers the table entry of its name', (file) => {
    const text = readFileSync(path.join(ROOT, 'functions', file), 'utf8');
    expect(text.trimEnd().split('\n').length).toBeLessThan(25);
    const name = file.replace(/\.ts$/, '');
    expect(text).toContain(`import { ${name} } from '../src/handlers/registrations.js'`);
    expect(text).toMatch(new RegExp(`app\\.\\w+\\(${name}\\.name,`));
  });

  it('has one file per entry of the registration table', () => {
    expect(registrations.map((r) => `${r.name}.ts`).sort()).toEqual(functionFiles);
  });

  it('is imported by nothing in src/ (the local host goes through the table)', () => {
    const intoFunctions = sourceFiles('src').flatMap((file) => importsOf(file).filter((i) => i.startsWith('functions/')).map((i) => `${file} → ${i}`));
    expect(intoFunctions).toEqual([]);
  });
});
