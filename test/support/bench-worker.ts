/**
 * The quality bench's replay worker (bench/quality/drover-worker.ts) bundled into a temporary
 * folder: a worker thread runs JavaScript, and the tests run the TypeScript sources, not dist/.
 */
import path from 'node:path';
import * as esbuild from 'esbuild';
import { tempDir } from './config.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** The bundle's path; everything in it, so it runs from any folder. */
export async function bundledDroverWorker(): Promise<string> {
  const outfile = path.join(tempDir(), 'drover-worker.mjs');
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'bench', 'quality', 'drover-worker.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    outfile,
    logLevel: 'warning',
    // The bundled CommonJS (yaml, the SDKs) calls require(): give it Node's.
    banner: { js: "import { createRequire as __droverCreateRequire } from 'node:module'; const require = __droverCreateRequire(import.meta.url);" },
  });
  return outfile;
}
