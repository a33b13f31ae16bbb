/**
 * Just enough reading of Drover's Bicep files to check them against the code: Bicep cannot be
 * compiled on these machines, so the contract tests read the text. Each reader throws when
 * the shape it expects is not there, so a rewrite of the Bicep fails loudly rather than
 * making a check vacuous.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const INFRA = path.resolve(import.meta.dirname, '../../../infra');

export function readInfra(relative: string): string {
  return readFileSync(path.join(INFRA, relative), 'utf8');
}

/** Every .bicep file under infra/, by path relative to it. */
export function bicepFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.bicep')) files.set(path.relative(INFRA, full), readFileSync(full, 'utf8'));
    }
  };
  walk(INFRA);
  return files;
}

/** The text from `start` to the bracket that closes the first one opened at or after it. */
function balanced(source: string, start: number): string {
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    const c = source[i];
    if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') {
      depth--;
      if (depth === 0) return source.slice(start, i + 1);
    }
  }
  throw new Error(`unbalanced brackets after offset ${start}`);
}

/** What follows `= ` in a declaration: an optional `if (…)`, then one bracketed body. */
function declarationBody(source: string, start: number): string {
  let at = start;
  if (source.startsWith('if ', at)) at += balanced(source, at).length;
  const bodyStart = source.slice(at).search(/[{[]/) + at;
  return source.slice(start, bodyStart) + balanced(source, bodyStart);
}

/** The body of `var <name> = {…}` or `var <name> = […]`. */
export function varBody(source: string, name: string): string {
  const at = source.search(new RegExp(`^var ${name} = [\\[{]`, 'm'));
  if (at < 0) throw new Error(`no "var ${name} = {…}" or "[…]"`);
  return balanced(source, source.indexOf('=', at));
}

/** Keys and raw values of a one-level object literal, comments dropped. */
export function objectEntries(body: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of body.split('\n').slice(1, -1)) {
    const code = line.replace(/\/\/.*$/, '').trim();
    if (!code) continue;
    const match = /^([A-Za-z_][\w]*|'[^']+'):\s*(.+)$/.exec(code);
    if (!match) throw new Error(`not a "key: value" line: ${line}`);
    entries.set(match[1]!.replace(/^'|'$/g, ''), match[2]!);
  }
  return entries;
}

/** The string literals of a one-string-per-line array literal. */
export function stringArray(body: string): string[] {
  return body
    .split('\n')
    .slice(1, -1)
    .map((line) => line.replace(/\/\/.*$/, '').trim())
    .filter(Boolean)
    .map((line) => {
      const match = /^'([^']*)'$/.exec(line);
      if (!match) throw new Error(`not a string literal line: ${line}`);
      return match[1]!;
    });
}

/** Evaluates a Bicep string literal with `${name}` interpolations from `vars`. */
export function interpolate(literal: string, vars: Record<string, string>): string {
  const match = /^'(.*)'$/.exec(literal.trim());
  if (!match) throw new Error(`not a string literal: ${literal}`);
  return match[1]!.replace(/\$\{(\w+)\}/g, (_, name: string) => {
    const value = vars[name];
    if (value === undefined) throw new Error(`no value for \${${name}} in ${literal}`);
    return value;
  });
}

export interface RoleAssignment {
  file: string;
  symbol: string;
  /** Keys of infra/roles.json the assignment uses. */
  roles: string[];
  /** What it is scoped to: a resource type, or the file's target scope. */
  scope: string;
  /** The expression given as principalId. */
  principal: string;
}

/** Every Microsoft.Authorization/roleAssignments resource in the given files. */
export function roleAssignments(files: Map<string, string>): RoleAssignment[] {
  const found: RoleAssignment[] = [];
  for (const [file, source] of files) {
    const types = new Map<string, string>();
    for (const m of source.matchAll(/^resource (\w+) '([^'@]+)@[^']+'/gm)) types.set(m[1]!, m[2]!);
    const targetScope = /^targetScope = '(\w+)'/m.exec(source)?.[1] ?? 'resourceGroup';
    for (const m of source.matchAll(/^resource (\w+) 'Microsoft\.Authorization\/roleAssignments@[^']+' = /gm)) {
      const body = declarationBody(source, m.index + m[0].length);
      const scopeSymbol = /\bscope: (\w+)/.exec(body)?.[1];
      const scope = scopeSymbol === undefined ? targetScope : types.get(scopeSymbol);
      if (!scope) throw new Error(`${file}: ${m[1]} is scoped to ${scopeSymbol}, which is not a resource of the file`);
      found.push({
        file,
        symbol: m[1]!,
        // `roles.<key>` for a built-in role, `roleIds.<key>` (GUIDs of roles.json "custom") for Drover's own.
        roles: [...new Set([...body.matchAll(/\b(?:roles|roleIds)\.(?!custom\b)(\w+)/g)].map((r) => r[1]!))],
        scope,
        principal: /\bprincipalId: ([\w.]+)/.exec(body)?.[1] ?? '(none)',
      });
    }
  }
  return found;
}

/** The module declaration of `main.bicep` that deploys `file`, up to its closing bracket. */
export function moduleDeclaration(main: string, file: string): string {
  const at = main.indexOf(`'${file}' = `);
  if (at < 0) throw new Error(`main.bicep deploys no module '${file}'`);
  const start = main.lastIndexOf('\nmodule ', at) + 1;
  const bodyStart = at + file.length + 5;
  return main.slice(start, bodyStart) + declarationBody(main, bodyStart);
}
