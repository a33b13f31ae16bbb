/**
 * The shape of src/: every relative import it makes (static, dynamic with a literal, type-only,
 * re-exports), read with the TypeScript scanner. No cycle, because a cycle makes module order
 * matter and hides which layer depends on which; nothing from sim/, because the simulators and
 * the demo are development tools that the function app and the `drover` bin must not carry.
 */
import { describe, expect, it } from 'vitest';
import { cycles, importsOf, sourceFiles } from './support/imports.js';

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

  it('leave the async probe on the stores it is handed: it does not reach the runtime', () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of graph.get(file) ?? []) visit(next);
    };
    visit('src/probe/async-probe.ts');
    expect(reached.has('src/probe/async-probe.ts')).toBe(true);
    expect([...reached].filter((f) => f.startsWith('src/runtime/'))).toEqual([]);
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
