#!/usr/bin/env node
/**
 * Builds the command line's bundle, dist/cli/drover.js (the package's bin, see bundleCli), and
 * what Azure Functions runs, in dist/deploy (the directory azd uploads, see azure.yaml):
 *
 *   app/main.js          every function in functions/, bundled with its dependencies
 *   app/chunks/*.js      code reached only through import(): the ARM and Kubernetes SDKs
 *   app/assets/uplot/    uPlot's browser build and stylesheet, inlined into the status page
 *   package.json         type module, main app/main.js, no dependencies
 *   host.json            copied
 *   drover.config.yaml   the configuration at the repository root, checked (scripts/deploy-checks.mjs),
 *                        with the kubeconfig and CA files it names by relative path
 *   drover.sequence.json the configuration's sequence, the build's time in epoch ms (src/config/sequence.ts):
 *                        of two deployments on one storage account, the newer build's configuration wins
 *
 * Why a bundle: a cold start then reads a handful of files instead of several hundred from
 * node_modules, and the package has no node_modules to install, so it holds no dev dependency
 * and nothing is built on the server. `@azure/functions` is bundled too: the v4 model only
 * needs its registrations to reach the worker's built-in `@azure/functions-core`, which stays
 * external and is loaded through a real `require` (the worker hooks Module.prototype.require),
 * and one bundled copy means one programming model. Not minified, so stack traces in
 * Application Insights keep their names.
 *
 * Run after `tsc -p tsconfig.build.json` (npm run build does both): the configuration is
 * validated with the compiled loader in dist/src/config.
 *
 * Usage: node scripts/build.mjs [--out DIR] [--meta FILE] [--config FILE] [--strict] [--allow-dev-config]
 *   --strict            a missing configuration stops the build too (the default under azd, which sets AZURE_ENV_NAME)
 *   --allow-dev-config  a local configuration (Azurite, the simulators, a dev token) builds, with notes,
 *                       into a package without configuration; refused under azd
 */
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import console from 'node:console';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { checkDeployConfig } from './deploy-checks.mjs';
import { compiled } from './lib/compiled.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DEPLOY_DIR = 'dist/deploy';
/** uPlot's browser build, stylesheet and licence, shipped for the status page. */
const UPLOT_FILES = ['dist/uPlot.iife.min.js', 'dist/uPlot.min.css', 'LICENSE'];
/** Beside the deployed configuration (src/config/sequence.ts reads it; test/config/sequence.test.ts keeps the names equal). */
export const SEQUENCE_FILE = 'drover.sequence.json';
/** The worker's built-in module: it exists only inside the Functions host. */
const FUNCTIONS_CORE = '@azure/functions-core';

/** `…/node_modules/a/node_modules/@s/b/x.js` → `node_modules/a/node_modules/@s/b`: its package-lock key. */
export function lockKey(file) {
  return /(?:^|\/)(node_modules\/(?:.*\/node_modules\/)?(?:@[^/]+\/)?[^/]+)/.exec(file.replaceAll('\\', '/'))?.[1];
}

/**
 * Bundles only what a production install would have: a package package-lock.json marks `dev`
 * stays external, as if absent. Only optional requires reach one (debug tries supports-color,
 * which a dev tool installed); Drover's own code importing one is a build error.
 */
function productionOnly(lockPackages, { devImports = 'error' } = {}) {
  return {
    name: 'production-only',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === 'production-only') return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: 'production-only',
        });
        const key = resolved.errors.length === 0 && !resolved.external ? lockKey(path.relative(ROOT, resolved.path)) : undefined;
        if (key === undefined || !lockPackages[key]?.dev) return undefined;
        if (devImports === 'error' && !lockKey(args.importer)) {
          return { errors: [{ text: `${path.relative(ROOT, args.importer)} imports "${args.path}", a dev dependency` }] };
        }
        return { path: args.path, external: true };
      });
    },
  };
}

/** An ESM bundle's first line: bundled CommonJS calls require(), so it is given Node's. */
export const NODE_REQUIRE_BANNER = {
  js: "import { createRequire as __droverCreateRequire } from 'node:module'; const require = __droverCreateRequire(import.meta.url);",
};

/** Bundles every function file into `<outDir>/app`; returns esbuild's metafile. */
export async function bundleFunctions(outDir) {
  const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8'));
  const functionFiles = (await readdir(path.join(ROOT, 'functions'))).filter((f) => f.endsWith('.ts')).sort();
  if (functionFiles.length === 0) throw new Error(`no functions in ${path.join(ROOT, 'functions')}`);
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    stdin: {
      contents: functionFiles.map((f) => `import './functions/${f.replace(/\.ts$/, '.js')}';`).join('\n'),
      resolveDir: ROOT,
      sourcefile: 'drover-functions.ts',
      loader: 'ts',
    },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: path.join(outDir, 'app'),
    entryNames: 'main',
    chunkNames: 'chunks/[name]-[hash]',
    external: [FUNCTIONS_CORE],
    // Bundled CommonJS (@azure/functions among it) calls require(): give it Node's, so that
    // require('@azure/functions-core') reaches the worker's hook.
    banner: NODE_REQUIRE_BANNER,
    plugins: [productionOnly(lock.packages)],
    legalComments: 'external',
    metafile: true,
    logLevel: 'warning',
  });
  return result.metafile;
}

/** Where `npm run build` writes the command line's bundle (package.json's bin), relative to ROOT. */
export const CLI_DIR = 'dist/cli';

/**
 * Bundles the command line into `<outDir>/drover.js`, the package's bin: one file to read at
 * start-up instead of hundreds from node_modules, with the verbs, the SDKs and the simulators
 * in chunks loaded by import() only when a verb needs them. Development packages (Azurite, for
 * `drover sim`) stay external and load from node_modules, as the CLI runs from a checkout.
 */
export async function bundleCli(outDir) {
  const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8'));
  await rm(outDir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { drover: 'src/cli.ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: outDir,
    chunkNames: 'chunks/[name]-[hash]',
    // The local host imports functions/*, whose @azure/functions asks for the worker's module.
    external: [FUNCTIONS_CORE],
    banner: NODE_REQUIRE_BANNER,
    plugins: [productionOnly(lock.packages, { devImports: 'external' })],
    legalComments: 'external',
    metafile: true,
    logLevel: 'warning',
  });
  return result.metafile;
}

/** The package.json the Functions host reads: ESM, the bundle as main, nothing to install. */
export function deployPackageJson(rootPackage) {
  return {
    name: rootPackage.name,
    version: rootPackage.version,
    description: rootPackage.description,
    private: true,
    type: 'module',
    main: 'app/main.js',
    engines: rootPackage.engines,
  };
}

/**
 * Loads, validates and checks the configuration (scripts/deploy-checks.mjs); returns the files to
 * ship, relative to its directory. A configuration that cannot be deployed (invalid, or carrying
 * a secret) stops the build whoever runs it: a package that cannot work, or would ship a
 * credential, must not be built. `allowDevConfig` (--allow-dev-config) is the one exception, for
 * a local configuration pointing at Azurite and the simulators: its problems are notes and the
 * package then carries no configuration at all, so nothing of it can be deployed by mistake;
 * under azd it is refused. A missing configuration is a note outside strict mode (a fresh
 * checkout builds), an error in it (under azd, or --strict).
 */
async function checkedConfigFiles(configFile, { loadConfig, loadKinds, env, strict, allowDevConfig, warn }) {
  const name = path.relative(ROOT, configFile);
  if (allowDevConfig && env.AZURE_ENV_NAME) throw new Error('--allow-dev-config is for local builds only; azd deploys what it builds');
  if (!existsSync(configFile)) {
    const message = `${name} not found, so ${DEPLOY_DIR} has no configuration; a deployed app needs one (docs/deploy.md, "1. Write the configuration")`;
    if (strict) throw new Error(message);
    warn(`note: ${message}`);
    return [];
  }
  const refuse = (message) => {
    if (!allowDevConfig) throw new Error(message);
    warn(`note: ${message}\nnote: allowed by --allow-dev-config: ${DEPLOY_DIR} gets no configuration and must not be deployed`);
    return [];
  };
  let config;
  try {
    config = await loadConfig(configFile);
  } catch (err) {
    return refuse(err instanceof Error ? err.message : String(err));
  }
  const configDir = path.dirname(configFile);
  const report = checkDeployConfig(config, {
    env,
    configDir,
    kinds: await loadKinds(),
    exists: (file) => existsSync(path.resolve(configDir, file)),
    read: (file) => readFileSync(path.resolve(configDir, file), 'utf8'),
  });
  for (const warning of report.warnings) warn(`warning: ${warning}`);
  if (report.errors.length > 0) {
    return refuse(`${name} cannot be deployed:\n${report.errors.map((e) => `  ${e}`).join('\n')}`);
  }
  return [path.basename(configFile), ...report.files];
}

/**
 * Writes the whole deploy directory; returns the bundle's metafile. `loadConfig` is Drover's
 * own loader (src/config/load.ts), so the package is checked against the real schema.
 */
export async function buildDeployPackage({ outDir, configFile, loadConfig, loadKinds = compiledSourceKinds, env = process.env, strict = Boolean(env.AZURE_ENV_NAME), allowDevConfig = false, warn = (line) => console.warn(line), builtAt = Date.now() }) {
  const configFiles = await checkedConfigFiles(configFile, { loadConfig, loadKinds, env, strict, allowDevConfig, warn });
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const metafile = await bundleFunctions(outDir);
  const rootPackage = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
  await writeFile(path.join(outDir, 'package.json'), `${JSON.stringify(deployPackageJson(rootPackage), null, 2)}\n`);
  await cp(path.join(ROOT, 'host.json'), path.join(outDir, 'host.json'));
  // The status page inlines uPlot, read from beside the bundle (src/status/page/uplot-assets.ts).
  for (const file of UPLOT_FILES) await cp(path.join(ROOT, 'node_modules', 'uplot', file), path.join(outDir, 'app', 'assets', 'uplot', path.basename(file)));
  const configDir = path.dirname(configFile);
  for (const file of configFiles) {
    // The deployed DROVER_CONFIG is drover.config.yaml at the package root, whatever the source name.
    const target = file === path.basename(configFile) ? 'drover.config.yaml' : file;
    await mkdir(path.dirname(path.join(outDir, target)), { recursive: true });
    await cp(path.join(configDir, file), path.join(outDir, target));
  }
  // A rollback is a newer build too: whatever it ships, its configuration is the one that wins.
  if (configFiles.length > 0) await writeFile(path.join(outDir, SEQUENCE_FILE), sequenceFile(builtAt));
  return metafile;
}

/** The sequence file's body: the build's time in epoch ms, and the same time readable. */
export function sequenceFile(builtAt) {
  return `${JSON.stringify({ sequence: builtAt, builtAt: new Date(builtAt).toISOString() }, null, 2)}\n`;
}

/** The loader tsc compiled into dist/, imported only when there is a configuration to check. */
async function compiledConfigLoader(file) {
  const { loadConfig } = await compiled('config/load.js');
  return loadConfig(file);
}

/** The source kinds tsc compiled into dist/ (their deploy checks), beside the loader. */
async function compiledSourceKinds() {
  return (await compiled('load/registry.js')).SOURCE_KINDS;
}

async function main() {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: DEPLOY_DIR },
      meta: { type: 'string' },
      config: { type: 'string', default: 'drover.config.yaml' },
      strict: { type: 'boolean', default: false },
      'allow-dev-config': { type: 'boolean', default: false },
    },
  });
  const outDir = path.resolve(ROOT, values.out);
  const started = Date.now();
  await bundleCli(path.resolve(ROOT, CLI_DIR));
  const metafile = await buildDeployPackage({
    outDir,
    configFile: path.resolve(ROOT, values.config),
    loadConfig: compiledConfigLoader,
    ...(values.strict ? { strict: true } : {}),
    allowDevConfig: values['allow-dev-config'],
  });
  if (values.meta) await writeFile(path.resolve(ROOT, values.meta), JSON.stringify(metafile));
  const outputs = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js'));
  const bytes = outputs.reduce((sum, [, o]) => sum + o.bytes, 0);
  console.log(
    `${path.relative(ROOT, outDir)}: ${outputs.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB, in ${Date.now() - started} ms`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
