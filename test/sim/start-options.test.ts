/**
 * `npm start -- …` takes the options of `drover sim`, parsed by the same command line: its
 * `--help` is the verb's help, a bad value is refused in the same words; and `drover sim` where
 * the demo is not built says what to run, in the checkout it is run from.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let out: string;

beforeAll(() => {
  // What `npm start` bundles, into a folder of this file's (dist/ is git-ignored, and the
  // bundle's external packages resolve from the checkout's node_modules).
  mkdirSync(path.join(ROOT, 'dist'), { recursive: true });
  out = mkdtempSync(path.join(ROOT, 'dist', 'test-start-'));
  const prestart = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { prestart: string } }).scripts.prestart;
  const args = prestart.split(' ').slice(1).map((a) => (a === '--outdir=dist/start' ? `--outdir=${out}` : a));
  expect(args).toContain(`--outdir=${out}`);
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'esbuild'), args, { cwd: ROOT, stdio: 'ignore' });
}, 60_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

function node(file: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(out, file), ...args], { cwd: ROOT, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('the demo\'s command line', () => {
  it('npm start -- --help prints the help of drover sim', async () => {
    const r = await node('main.js', '--help');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^Usage: drover sim \[options\]/);
    expect(r.stdout).toContain('--for <duration>');
  });

  it('npm start -- --for 5x is refused as drover sim --for 5x is, in one line', async () => {
    const started = await node('main.js', '--for', '5x');
    let stderr = '';
    const code = await runCli(['sim', '--for', '5x'], { stdout: () => undefined, stderr: (s) => (stderr += s), env: {} });
    expect({ code: started.code, stderr: started.stderr, stdout: started.stdout }).toEqual({ code, stderr, stdout: '' });
    expect(stderr.split('\n')).toHaveLength(2);
  });

  it('drover sim without a built demo says how to get one, in the checkout it runs from', async () => {
    const r = await node('cli.js', 'sim');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: no demo at ${path.join(ROOT, 'sim', 'demo.js')}: drover sim runs the demo of a checkout built with \`npm run build\` (or run \`npm start\` in the checkout, which builds its own); an installed package has none\n`,
    );
  });
});
