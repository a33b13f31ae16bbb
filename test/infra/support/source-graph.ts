/**
 * The source files the function app runs: everything functions/*.ts reaches through static and
 * dynamic imports (esbuild resolves them; packages stay outside), and what those files read
 * from the environment and import from npm. The CLI, the local host and the simulators are
 * not in it unless a function reaches them, which is the point: only this code runs in Azure.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

export const ROOT = path.resolve(import.meta.dirname, '../../..');

export interface SourceGraph {
  /** Repository-relative paths of every reachable source file. */
  files: string[];
  /** npm package → the files that import it. */
  packages: Map<string, string[]>;
}

export async function functionAppSources(): Promise<SourceGraph> {
  const functionsDir = path.join(ROOT, 'functions');
  const entryPoints = readdirSync(functionsDir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join('functions', f));
  const { metafile } = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    splitting: true,
    outdir: 'unused',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const packages = new Map<string, string[]>();
  for (const [file, input] of Object.entries(metafile.inputs)) {
    for (const imported of input.imports) {
      if (!imported.external || imported.path.startsWith('node:')) continue;
      const name = packageName(imported.path);
      packages.set(name, [...(packages.get(name) ?? []), file]);
    }
  }
  return { files: Object.keys(metafile.inputs).sort(), packages };
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

export interface Read {
  name: string;
  file: string;
  line: number;
}

const ENV_READ = /\benv(?:\?\.|\.)([A-Za-z_]\w*)|\benv\[\s*(['"`])([A-Za-z_]\w*)\2\s*\]/g;
const BINDING_EXPRESSION = /%([A-Za-z_]\w*)%/g;
/** Reads a scanner cannot name: computed keys and destructuring. */
const UNNAMED_READ = /\benv\[\s*[^'"`\s]|\}\s*=\s*(?:process\.)?env\b/;
/**
 * A read of a setting whose name the user's configuration gives (a source's `bearerTokenSetting`,
 * `connectionSetting`): no Bicep sets it, the user does, so it is marked where it is read and
 * left out of the contract.
 */
const NAMED_BY_CONFIGURATION = /contract: a setting the configuration names/;

function scan(files: readonly string[], pattern: RegExp, nameOf: (m: RegExpMatchArray) => string, refuse?: RegExp): Read[] {
  const reads: Read[] = [];
  for (const file of files) {
    readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((text, i) => {
        if (refuse?.test(text) && !NAMED_BY_CONFIGURATION.test(text)) {
          throw new Error(`${file}:${i + 1} reads the environment in a way the contract test cannot name: ${text.trim()}`);
        }
        for (const m of text.matchAll(pattern)) reads.push({ name: nameOf(m), file, line: i + 1 });
      });
  }
  return reads;
}

/** `process.env.X`, `env.X`, `env?.X`, `env['X']` in the given files. */
export function environmentReads(files: readonly string[]): Read[] {
  return scan(files, ENV_READ, (m) => m[1] ?? m[3]!, UNNAMED_READ);
}

/** `%X%` binding expressions, which the Functions host resolves from app settings. */
export function bindingExpressions(files: readonly string[]): Read[] {
  return scan(files, BINDING_EXPRESSION, (m) => m[1]!);
}

/** The `connection` names of triggers and bindings, which the host resolves to `X` or `X__…` settings. */
export function bindingConnections(files: readonly string[]): Read[] {
  return scan(files, /\bconnection:\s*['"]([^'"]+)['"]/g, (m) => m[1]!);
}

/** `app.<trigger>(` registrations in the function files. */
export function triggerKinds(files: readonly string[]): Read[] {
  return scan(files, /\bapp\.(\w+)\(/g, (m) => m[1]!);
}

/** The distinct names of some reads, sorted. */
export function names(reads: readonly Read[]): string[] {
  return [...new Set(reads.map((r) => r.name))].sort();
}
