/**
 * Where Drover's own files are, found from a module's location rather than assumed: the same
 * code runs from src/ (tests), dist/src/ (tsc) and dist/start/ (the bundle `npm start` builds).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Drover's version, from the package.json above `moduleUrl` that names the package `drover`. */
export function droverVersion(moduleUrl: string = import.meta.url): string {
  for (let dir = path.dirname(fileURLToPath(moduleUrl)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'drover' && typeof pkg.version === 'string') return pkg.version;
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}

/** `node /abs/path/cli.js`, quoted for a POSIX shell when the path needs it. */
export function nodeCommand(script: string): string {
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);
  return `node ${quote(path.resolve(script))}`;
}
