/**
 * The command line's bundle (package.json's bin), built into a temporary directory by the same
 * code `npm run build` runs: what `--help` loads, and that verbs load their chunks and keep
 * their exit codes.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_DIR, bundleCli, lockKey } from '../../scripts/build.mjs';
import { ROOT } from './support/source-graph.js';

let tmp: string;
let out: string;
let metafile: Metafile;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'drover-cli-'));
  out = path.join(tmp, 'cli');
  metafile = await bundleCli(out);
}, 60_000);

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function drover(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(out, 'drover.js'), ...args], { env: { PATH: process.env.PATH }, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('the command line bundle', () => {
  it('is what the drover bin runs', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin.drover).toBe(`${CLI_DIR}/drover.js`);
  });

  it('loads no SDK, no YAML parser and no verb before a verb runs: its static imports hold only what parses the options', () => {
    const outputs = Object.fromEntries(Object.entries(metafile.outputs).map(([file, o]) => [path.resolve(ROOT, file), o]));
    const entry = path.join(out, 'drover.js');
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const imported of outputs[file]!.imports) if (imported.kind === 'import-statement' && !imported.external) visit(path.resolve(ROOT, imported.path));
    };
    visit(entry);
    const inputs = [...seen].flatMap((file) => Object.keys(outputs[file]!.inputs));
    const packages = new Set(inputs.map((input) => lockKey(input)).filter((key) => key !== undefined));
    // zod comes with the queue's delay limit, which checks --delay while parsing; cron-parser
    // (and its luxon) with the replay's --schedule.
    expect([...packages].sort()).toEqual(['node_modules/commander', 'node_modules/cron-parser', 'node_modules/luxon', 'node_modules/zod']);
    expect(inputs).not.toContain('src/cli/commands.ts');
    expect(inputs).not.toContain('src/replay/cli-verb.ts');
  });

  it('prints its help and exits 0', async () => {
    const { code, stdout } = await drover('--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: drover/);
    expect(stdout).toContain('reconcile');
  });

  it('loads a verb from its chunk and keeps the usage exit code of its checks', async () => {
    const { code, stderr } = await drover('enqueue', '--pool', 'a', '--target', 'b');
    expect(code).toBe(2);
    expect(stderr).toContain('give exactly one of --target NAME or --pool NAME');
  });

  it('still tells a configuration error (exit 2) from a failure', async () => {
    const { code, stderr } = await drover('--config', path.join(tmp, 'missing.yaml'), 'status');
    expect(code).toBe(2);
    expect(stderr).toContain('cannot read the file');
  });
});
