/**
 * The shape of src/: every relative import it makes (static, dynamic with a literal, type-only,
 * re-exports), read with the TypeScript scanner. No cycle, because a cycle makes module order
 * matter and hides which layer depends on which; nothing from sim/, because the simulators and
 * the demo are development tools that the function app and the `drover` bin must not carry.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Repository-relative files a file imports (packages and node: modules left out). */
export function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts'));
}

/** Every cycle, as one file path per strongly connected component of more than one file (or a self-import). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || graph.get(file)!.includes(file)) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** src/ with the function files and the simulators, so that a cycle through either is seen too. */
const graph = new Map(['src', 'functions', 'sim'].flatMap(sourceFiles).map((file) => [file, importsOf(file)]));
const product = [...graph].filter(([file]) => !file.startsWith('sim/'));

describe('the imports of src/, functions/ and sim/', () => {
  it('are read from every source file', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('src/cli.ts')).toContain('src/cli/commands.ts');
  });

  it('form no cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('reach nothing in sim/ (nor do the function files)', () => {
    const intoSim = product.flatMap(([file, imports]) => imports.filter((i) => i.startsWith('sim/')).map((i) => `${file} → ${i}`));
    expect(intoSim).toEqual([]);
  });

  it('resolve to files that exist', () => {
    const known = new Set(graph.keys());
    const missing = [...graph].flatMap(([file, imports]) => imports.filter((i) => !known.has(i)).map((i) => `${file} → ${i}`));
    expect(missing).toEqual([]);
  });
});

describe('the cycle finder', () => {
  it('finds a cycle of two files and a self-import, and passes a chain', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['a', 'c']],
      ['c', ['d']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(cycles(g)).toEqual([['a', 'b'], ['e']]);
    expect(cycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });
});
