/**
 * The shape of src/: every relative import it makes (static, dynamic with a literal, type-only,
 * re-exports), read with the TypeScript scanner. No cycle, because a cycle makes module order
 * matter and hides which layer depends on which; no import from a layer up to a higher one
 * (support/layers.ts: the layers, and the few exceptions with why), nor from one of the
 * scaler's stages to a later one; nothing from sim/, because the simulators and the demo are
 * development tools that the function app and the `drover` bin must not carry.
 */
import { describe, expect, it } from 'vitest';
import { cycles, importsOf, sourceFiles } from './support/imports.js';
import { EXCEPTIONS, LAYERS, layerViolations } from './support/layers.js';

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

  it("go down the layers only, and through the scaler's stages in order, but for the exceptions listed", () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('need every exception listed: each one excuses an import that is there', () => {
    const imports = [...graph].flatMap(([file, targets]) => targets.map((to) => ({ file, to })));
    const covers = (entry: string, file: string) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry);
    const unused = EXCEPTIONS.filter((e) => !imports.some(({ file, to }) => covers(e.from, file) && covers(e.to, to)));
    expect(unused).toEqual([]);
    expect(LAYERS.flatMap((l) => l.paths).filter((p) => !graph.has(p) && ![...graph.keys()].some((f) => f.startsWith(p)))).toEqual([]);
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

describe('the layer check', () => {
  const layers = [
    { name: 'top', paths: ['src/cli/'] },
    { name: 'middle', paths: ['src/scaler/', 'src/pool/'] },
    { name: 'bottom', paths: ['src/state/', 'src/clock.ts'] },
  ];
  const stages = ['src/scaler/read/', 'src/scaler/decide/'];

  it('names an import up a layer, one from a stage to a later one, and a file in no layer', () => {
    const graph = new Map([
      ['src/state/leases.ts', ['src/clock.ts', 'src/pool/plan.ts']],
      ['src/scaler/read/record.ts', ['src/scaler/decide/plan.ts']],
      ['src/stray/file.ts', []],
    ]);
    expect(layerViolations(graph, layers, stages, [])).toEqual([
      'src/state/leases.ts → src/pool/plan.ts: bottom imports from middle, a layer above',
      "src/scaler/read/record.ts → src/scaler/decide/plan.ts: the scaler's src/scaler/read/ stage imports from a later stage",
      'src/stray/file.ts is in no layer',
    ]);
  });

  it('passes imports down and across a layer and into an earlier stage, and an import excused by an exception', () => {
    const graph = new Map([
      ['src/cli/commands.ts', ['src/scaler/decide/plan.ts', 'src/clock.ts']],
      ['src/scaler/decide/plan.ts', ['src/scaler/read/record.ts', 'src/pool/wanted.ts']],
      ['src/pool/wanted.ts', ['src/scaler/read/record.ts']],
      ['src/state/leases.ts', ['src/pool/plan.ts']],
    ]);
    expect(layerViolations(graph, layers, stages, [{ from: 'src/state/leases.ts', to: 'src/pool/', why: 'a test' }])).toEqual([]);
  });
});
