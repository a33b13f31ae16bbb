/**
 * The quality bench's replay worker (bench/quality/drover-worker.ts) bundled into a temporary
 * folder: a worker thread runs JavaScript, and the tests run the TypeScript sources, not dist/.
 */
import path from 'node:path';
import * as esbuild from 'esbuild';
import { NODE_REQUIRE_BANNER, ROOT } from '../../scripts/build.mjs';
import { tempDir } from './config.js';

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
    // The bundled CommonJS (yaml, the SDKs) calls require(), as in the function app's bundle.
    banner: NODE_REQUIRE_BANNER,
  });
  return outfile;
}
