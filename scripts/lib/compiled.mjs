/**
 * Drover's own modules as tsc compiled them into dist/src (npm run build; azd builds before it
 * provisions), for the deploy scripts: the configuration loader and the load source kinds, so
 * that a script validates the file and takes each kind's checks and grants from the one registry,
 * never from a copy of its own.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `config/load.js` → the module of dist/src/config/load.js; a clear error when it was not built. */
export async function compiled(module) {
  const file = path.join(ROOT, 'dist/src', module);
  if (!existsSync(file)) throw new Error(`${file} is missing: run tsc -p tsconfig.build.json first (npm run build does)`);
  return import(pathToFileURL(file).href);
}

/** The configuration file, validated by Drover's own loader, and the grants its load sources need (src/load/grants.ts). */
export async function configWithGrants(file) {
  const [{ loadConfig }, { sourceGrants }] = await Promise.all([compiled('config/load.js'), compiled('load/grants.js')]);
  const config = await loadConfig(file);
  return { config, grants: sourceGrants(config) };
}
