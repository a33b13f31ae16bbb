/**
 * The README's configuration reference is complete and its examples are valid: every key the
 * schema accepts has a row, and each example configuration loads.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfigText } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';
import { fencedBlocks, section } from '../support/readme.js';

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType; options?: z.ZodType[] };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Every leaf key the schema accepts, as the reference writes it: `pools[].instanceCache.ttl`. */
function schemaKeys(schema: z.ZodType, at: string, out: Set<string>): Set<string> {
  const def = defOf(schema);
  // A field that picks one of several forms itself (targets[].load) names them in its meta.
  const forms = z.globalRegistry.get(schema)?.forms;
  if (Array.isArray(forms)) for (const form of forms as z.ZodType[]) schemaKeys(form, at, out);
  else if (def.type === 'object') for (const [key, value] of Object.entries(def.shape!)) schemaKeys(value, at ? `${at}.${key}` : key, out);
  else if (def.innerType) schemaKeys(def.innerType, at, out);
  else if (def.type === 'pipe') schemaKeys(def.in!, at, out);
  else if (def.type === 'array') schemaKeys(def.element!, `${at}[]`, out);
  else if (def.type === 'union') for (const option of def.options!) schemaKeys(option, at, out);
  else out.add(at);
  return out;
}

describe('README configuration reference', () => {
  const reference = section('Configuration reference');
  const documented = new Set(
    reference
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => [...l.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!))
      .filter((k) => /^(storage|azure|kubernetes|pools|targets)\b/.test(k)),
  );

  it('has a row for every key of the schema', () => {
    const keys = [...schemaKeys(configSchema, '', new Set())];
    expect(keys).toContain('kubernetes.inCluster');
    expect(keys.filter((k) => !documented.has(k))).toEqual([]);
  });

  it('documents no key the schema refuses', () => {
    const keys = schemaKeys(configSchema, '', new Set());
    expect([...documented].filter((k) => !keys.has(k))).toEqual([]);
  });

  it.each(['A pools-only configuration', 'A targets-only configuration'])('%s loads', (heading) => {
    const [yaml] = fencedBlocks(section(heading), 'yaml');
    const config = parseConfigText(yaml!);
    if (heading.includes('pools')) expect([config.pools.length, config.targets.length]).toEqual([1, 0]);
    else expect([config.pools.length, config.targets.length]).toEqual([0, 2]);
  });

  it('says what a target with the defaults must add, as config load refuses it', () => {
    const refused = () => parseConfigText('kubernetes: {}\ntargets:\n  - name: web\n    scaleTargetRef: { kind: Deployment, name: web }\n');
    expect(refused).toThrow(/targets\[0\]\.activator: required when scaleToZero\.enabled is true and minScale is 0/);
    expect(reference).toContain('targets[0].activator: required when scaleToZero.enabled is\ntrue and minScale is 0');
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

describe('links between the README and docs/', () => {
  const root = new URL('../../', import.meta.url);
  const files = ['README.md', ...readdirSync(new URL('docs/', root)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const text = (file: string) => readFileSync(new URL(file, root), 'utf8');
  const headings = (file: string) => new Set([...text(file).matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1]!)));

  it.each(files)('every relative link of %s reaches a file and heading', (file) => {
    const broken = [...text(file).matchAll(/\]\(([^)#\s]*)(?:#([^)\s]+))?\)/g)]
      .filter(([, target]) => !/^https?:/.test(target!))
      .filter(([, target, hash]) => {
        const resolved = target ? new URL(target, new URL(file, root)) : new URL(file, root);
        if (!existsSync(resolved)) return true;
        return hash !== undefined && !headings(resolved.pathname.slice(root.pathname.length)).has(hash);
      })
      .map(([link]) => link);
    expect(broken).toEqual([]);
  });

  it('links every file of docs/ from the README', () => {
    const readme = text('README.md');
    expect(files.filter((f) => f !== 'README.md' && !readme.includes(`](${f}`))).toEqual([]);
  });
});
