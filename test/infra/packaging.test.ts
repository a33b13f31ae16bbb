/**
 * The package azd uploads (dist/deploy), built into a temporary directory by the same code
 * `npm run build` runs: what it holds, what it leaves out, and that it starts the way the
 * Functions worker starts it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import { buildDeployPackage, lockKey, SEQUENCE_FILE } from '../../scripts/build.mjs';
import { SOURCE_KINDS } from '../../src/load/registry.js';

const loadKinds = () => Promise.resolve(SOURCE_KINDS);
import { readConfigSequence, SEQUENCE_FILE as RUNTIME_SEQUENCE_FILE } from '../../src/config/sequence.js';

/** A build time that is not now: the stamp must be the one the build was given. */
const BUILT_AT = Date.parse('2026-03-04T05:06:07.089Z');
import { expectedFunctions, importInFreshProcess } from '../../bench/cold-start.js';
import { objectEntries, readInfra, varBody } from './support/bicep.js';
import { ROOT } from './support/source-graph.js';

const LAZY_SDKS = ['@azure/arm-compute', '@kubernetes/client-node'];

let tmp: string;
let deploy: string;
let metafile: Metafile;

async function writeSource(dir: string, config: Record<string, unknown>, extra: Record<string, string> = {}): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(extra)) await writeFile(path.join(dir, name), text);
  const file = path.join(dir, 'drover.config.yaml');
  await writeFile(file, stringify(config));
  return file;
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'drover-package-'));
  deploy = path.join(tmp, 'deploy');
  const configFile = await writeSource(
    path.join(tmp, 'source'),
    {
      azure: { subscriptionId: '00000000-0000-0000-0000-000000000001' },
      kubernetes: { kubeconfig: './aks.kubeconfig', auth: 'azure' },
      pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg-workers', name: 'vmss' } }],
    },
    { 'aks.kubeconfig': 'apiVersion: v1\nkind: Config\n' },
  );
  metafile = await buildDeployPackage({ outDir: deploy, configFile, loadConfig, loadKinds, env: {}, strict: true, builtAt: BUILT_AT });
}, 60_000);

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/**
 * Whether .funcignore excludes a package path, for the gitignore syntax the file uses: names
 * and `*` globs (any depth unless they contain a slash), and `!` re-inclusions. A path is
 * excluded when it or a directory above it is, by the last rule that matches.
 */
function funcignoreExcludes(rules: string[], file: string): boolean {
  const compiled = rules.map((line) => {
    if (/[[\]?]|\*\*/.test(line)) throw new Error(`.funcignore syntax this test does not read: ${line}`);
    const negate = line.startsWith('!');
    const glob = negate ? line.slice(1) : line;
    const anchored = glob.replace(/\/$/, '').includes('/');
    const body = glob.replace(/^\//, '').replace(/\/$/, '').replace(/[.+^${}()|\\]/g, '\\$&').replaceAll('*', '[^/]*');
    return { negate, regex: new RegExp(anchored ? `^${body}$` : `(^|/)${body}$`) };
  });
  const segments = file.split('/');
  return segments.some((_, i) => {
    const prefix = segments.slice(0, i + 1).join('/');
    let excluded = false;
    for (const rule of compiled) if (rule.regex.test(prefix)) excluded = !rule.negate;
    return excluded;
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

describe('the deploy package', () => {
  it('stamps the configuration with the build time as its sequence, where the deployed runtime reads it', () => {
    expect(SEQUENCE_FILE).toBe(RUNTIME_SEQUENCE_FILE);
    expect(readConfigSequence(path.join(deploy, 'drover.config.yaml'))).toEqual({ seq: BUILT_AT, source: 'build' });
  });

  it('holds the bundle, host.json, a package.json and the configuration with its kubeconfig, and nothing else', () => {
    const unexpected = filesUnder(deploy).filter(
      (f) =>
        !/^(package\.json|host\.json|drover\.config\.yaml|drover\.sequence\.json|aks\.kubeconfig)$/.test(f) &&
        !/^app\/(main|chunks\/[\w-]+)\.js(\.LEGAL\.txt)?$/.test(f) &&
        !/^app\/assets\/uplot\/(uPlot\.iife\.min\.js|uPlot\.min\.css|LICENSE)$/.test(f),
    );
    expect(unexpected).toEqual([]);
    expect(filesUnder(deploy)).toEqual(expect.arrayContaining(['app/main.js', 'drover.config.yaml', 'aks.kubeconfig', 'host.json']));
  });

  it("ships uPlot's browser build and stylesheet where the bundled status page reads them", () => {
    for (const file of ['uPlot.iife.min.js', 'uPlot.min.css']) {
      expect(readFileSync(path.join(deploy, 'app', 'assets', 'uplot', file), 'utf8')).toBe(readFileSync(path.join(ROOT, 'node_modules', 'uplot', 'dist', file), 'utf8'));
    }
  });

  it('has an ES module package.json whose main is the bundle, with nothing to install or run', () => {
    const pkg = JSON.parse(readFileSync(path.join(deploy, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg).toMatchObject({ name: 'drover', type: 'module', main: 'app/main.js' });
    expect(Object.keys(pkg).filter((k) => /ependencies$|^scripts$|^bin$/.test(k))).toEqual([]);
    expect(existsSync(path.join(deploy, String(pkg.main)))).toBe(true);
  });

  it('keeps every file through .funcignore, which keeps the rest of the repository out', () => {
    const rules = readFileSync(path.join(ROOT, '.funcignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    expect(filesUnder(deploy).filter((f) => funcignoreExcludes(rules, f))).toEqual([]);
    const repository = ['src/cli.ts', 'test/infra/packaging.test.ts', 'node_modules/zod/package.json', 'dist/src/cli.js', 'infra/main.bicep'];
    expect(repository.filter((f) => !funcignoreExcludes(rules, f))).toEqual([]);
    expect(funcignoreExcludes(rules, 'dist/deploy/app/main.js')).toBe(false);
  });

  it('ships the repository\'s host.json unchanged', () => {
    expect(readFileSync(path.join(deploy, 'host.json'), 'utf8')).toBe(readFileSync(path.join(ROOT, 'host.json'), 'utf8'));
  });

  it('bundles no test, simulator or command-line code, and no package that only development needs', () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.filter((i) => /^(test|bench|scripts|sim)\/|^src\/cli\b|\.test\.ts$/.test(i))).toEqual([]);
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const bundled = [...new Set(inputs.map(lockKey).filter((k): k is string => k !== undefined))];
    expect(bundled.length).toBeGreaterThan(10);
    expect(bundled.filter((k) => lock.packages[k] === undefined || lock.packages[k].dev === true)).toEqual([]);
  });
});

describe('the bundle', () => {
  const outputs = () => Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js'));
  const packagesIn = (output: Metafile['outputs'][string]) =>
    new Set(Object.keys(output.inputs).flatMap((i) => lockKey(i)?.replace(/^.*node_modules\//, '') ?? []));

  it('loads the ARM and Kubernetes SDKs only through import(): the entry and its static imports hold none of their code', () => {
    const all = Object.fromEntries(outputs());
    const entry = Object.keys(all).find((file) => file.endsWith('/app/main.js'))!;
    const eager = new Set<string>();
    const visit = (file: string) => {
      if (eager.has(file)) return;
      eager.add(file);
      for (const imported of all[file]!.imports) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    };
    visit(entry);
    const eagerPackages = new Set([...eager].flatMap((file) => [...packagesIn(all[file]!)]));
    const lazyPackages = new Set(Object.keys(all).filter((f) => !eager.has(f)).flatMap((file) => [...packagesIn(all[file]!)]));
    for (const sdk of LAZY_SDKS) {
      expect(eagerPackages.has(sdk), `${sdk} in the entry's static imports`).toBe(false);
      expect(lazyPackages.has(sdk), `${sdk} in a lazily loaded chunk`).toBe(true);
    }
  });

  it('registers every function with the worker\'s core module, binding only app settings the Bicep provisions', async () => {
    const started = await importInFreshProcess([path.join(deploy, 'app', 'main.js')]);
    expect(started.functions.map((f) => f.name).sort()).toEqual(expectedFunctions());
    const settings = objectEntries(varBody(readInfra('app/functions.bicep'), 'appSettings'));
    const expressions = [...JSON.stringify(started.functions).matchAll(/%(\w+)%/g)].map((m) => m[1]!);
    expect(expressions).toEqual(expect.arrayContaining(['DROVER_SCHEDULE', 'DROVER_RECONCILE_QUEUE', 'DROVER_PROBE_QUEUE']));
    expect(expressions.filter((name) => !settings.has(name))).toEqual([]);
  });

  it('loads its lazy chunks on their own, SDKs included', async () => {
    // The chunks import() reaches: the ARM and Kubernetes adapters, with the SDKs they import.
    const lazyEntries = outputs()
      .filter(([, o]) => /^src\/(azure|kubernetes)\//.test(o.entryPoint ?? ''))
      .map(([file]) => path.resolve(ROOT, file));
    expect(lazyEntries.length).toBeGreaterThanOrEqual(2);
    const loaded = await importInFreshProcess(lazyEntries);
    expect(loaded.functions).toEqual([]);
  });
});

describe('building with a configuration', () => {
  it('stops a strict build on a configuration that cannot be deployed, before writing anything', async () => {
    const configFile = await writeSource(path.join(tmp, 'bad'), { storage: { connection: 'UseDevelopmentStorage=true' } });
    const outDir = path.join(tmp, 'bad-deploy');
    await expect(buildDeployPackage({ outDir, configFile, loadConfig, loadKinds, env: {}, strict: true })).rejects.toThrow(
      /drover\.config\.yaml cannot be deployed:\n {2}storage\.connection: /,
    );
    expect(existsSync(outDir)).toBe(false);
  });

  it('stops any build, azd or not, on a configuration carrying secrets, naming each path', async () => {
    const configFile = await writeSource(path.join(tmp, 'secrets'), {
      azure: { subscriptionId: '00000000-0000-0000-0000-000000000000', credential: 'dev', devToken: 'dev-token-value', resourceManagerEndpoint: 'https://127.0.0.1:8443' },
      pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'web' } }],
      targets: [{ name: 'web', scaleTargetRef: { kind: 'Pool', name: 'workers' }, minScale: 1, load: { source: 'http', url: 'https://ops:pw@metrics.example/load?api_key=k', targetPerReplica: 5 } }],
    });
    const outDir = path.join(tmp, 'secrets-deploy');
    const message = await buildDeployPackage({ outDir, configFile, loadConfig, loadKinds, env: {}, warn: () => undefined }).then(() => 'built', (e: unknown) => String((e as Error).message));
    expect(message).toMatch(/cannot be deployed:\n {2}azure\.devToken: .*\n {2}targets\[0\]\.load\.url: the URL carries a user and password.*\n {2}targets\[0\]\.load\.url: its query string carries a credential \(api_key=\)/);
    expect(message).not.toMatch(/dev-token-value|ops:pw|=k\b/);
    expect(existsSync(outDir)).toBe(false);
  });

  it('--allow-dev-config builds a local configuration with notes, into a package that carries none; never under azd', async () => {
    const configFile = await writeSource(path.join(tmp, 'dev'), { storage: { connection: 'UseDevelopmentStorage=true' } });
    await expect(buildDeployPackage({ outDir: path.join(tmp, 'dev-azd'), configFile, loadConfig, env: { AZURE_ENV_NAME: 'dev' }, allowDevConfig: true })).rejects.toThrow(/--allow-dev-config is for local builds only/);
    const outDir = path.join(tmp, 'dev-deploy');
    const notes: string[] = [];
    await buildDeployPackage({ outDir, configFile, loadConfig, loadKinds, env: {}, allowDevConfig: true, warn: (line) => notes.push(line) });
    expect(notes.join('\n')).toMatch(/storage\.connection: [\s\S]*allowed by --allow-dev-config: dist\/deploy gets no configuration/);
    expect(existsSync(path.join(outDir, 'app', 'main.js'))).toBe(true);
    expect(existsSync(path.join(outDir, 'drover.config.yaml'))).toBe(false);
  });

  it('stops a strict build without a configuration', async () => {
    const outDir = path.join(tmp, 'none-deploy');
    await expect(
      buildDeployPackage({ outDir, configFile: path.join(tmp, 'missing.yaml'), loadConfig, env: {}, strict: true }),
    ).rejects.toThrow(/missing\.yaml not found/);
  });

  it('outside azd builds the package without a missing configuration, with a note', async () => {
    const outDir = path.join(tmp, 'local-deploy');
    const notes: string[] = [];
    await buildDeployPackage({ outDir, configFile: path.join(tmp, 'missing.yaml'), loadConfig, env: {}, warn: (line) => notes.push(line) });
    expect(notes).toEqual([expect.stringMatching(/^note: .*missing\.yaml not found, so dist\/deploy has no configuration/)]);
    expect(existsSync(path.join(outDir, 'app', 'main.js'))).toBe(true);
    expect(existsSync(path.join(outDir, 'drover.config.yaml'))).toBe(false);
  });

  it('is strict under azd by default', async () => {
    const outDir = path.join(tmp, 'azd-deploy');
    await expect(
      buildDeployPackage({ outDir, configFile: path.join(tmp, 'missing.yaml'), loadConfig, env: { AZURE_ENV_NAME: 'dev' } }),
    ).rejects.toThrow(/not found/);
  });
});
