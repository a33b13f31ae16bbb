import type { SourceKind } from '../src/load/source-kind.js';
import type { Metafile } from 'esbuild';
import type { DroverConfig } from '../src/config/schema.js';

export const ROOT: string;
/** Where `npm run build` writes the package azd uploads, relative to ROOT. */
export const DEPLOY_DIR: string;
/** An ESM bundle's first line: bundled CommonJS calls require(), so it is given Node's. */
export const NODE_REQUIRE_BANNER: { js: string };

/** The package-lock.json key of the package a file belongs to, if it is in node_modules. */
export function lockKey(file: string): string | undefined;

export function bundleFunctions(outDir: string): Promise<Metafile>;

/** Where `npm run build` writes the command line's bundle, relative to ROOT. */
export const CLI_DIR: string;

/** Bundles src/cli.ts into `<outDir>/drover.js` (the package's bin) with lazy chunks. */
export function bundleCli(outDir: string): Promise<Metafile>;

export function deployPackageJson(rootPackage: {
  name: string;
  version: string;
  description?: string;
  engines?: Record<string, string>;
}): Record<string, unknown>;

export function buildDeployPackage(options: {
  outDir: string;
  configFile: string;
  loadConfig: (file: string) => Promise<DroverConfig>;
  /** The source kinds whose deploy checks run (default: the registry tsc compiled into dist/). */
  loadKinds?: () => Promise<readonly Pick<SourceKind, 'name' | 'secrets'>[]>;
  env?: Record<string, string | undefined>;
  /** A missing configuration throws instead of a note; default: under azd (AZURE_ENV_NAME set). A refused one always throws. */
  strict?: boolean;
  /** --allow-dev-config: a refused local configuration is a note and the package carries none; refused under azd. */
  allowDevConfig?: boolean;
  /** Where configuration notes and warnings go; default: the console. */
  warn?: (line: string) => void;
  /** The build's time (epoch ms), the configuration's sequence in drover.sequence.json; default: now. */
  builtAt?: number;
}): Promise<Metafile>;

/** The sequence file written beside the deployed configuration (src/config/sequence.ts reads it). */
export const SEQUENCE_FILE: string;
export function sequenceFile(builtAt: number): string;
