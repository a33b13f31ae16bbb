/**
 * The README's quick start, run as written: every command of its sections "Two commands" and
 * "`drover` on the PATH", and the commands its text names there and in "The demo", in a fresh
 * copy of the checkout (no dist/, so from a fresh build). The copy's node_modules hard-links the
 * checkout's, so `npm install` finds it up to date instead of fetching; `npm link` links into a
 * prefix of the copy's own, never the machine's global one.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killGroup, livingInGroup, startGroup, until } from '../support/process-group.js';
import { readme, section, shellCommands } from '../support/readme.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const running: ChildProcess[] = [];
let copy: string;
let env: NodeJS.ProcessEnv;

/** Commands the quick start names in its text rather than in a block, in the order it names them. */
const NAMED_IN_TEXT = ['npx drover --help', 'node dist/cli/drover.js --help', 'npm start -- --for 2m', 'npm start -- --verbose', 'npm unlink -g drover'];

beforeAll(() => {
  copy = mkdtempSync(path.join(tmpdir(), 'drover-quickstart-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && existsSync(path.join(ROOT, f)));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    copyFileSync(path.join(ROOT, file), path.join(copy, file));
  }
  execFileSync('cp', ['-al', path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules')]);
  // npm rewrites its record of node_modules in place: a link would write into the checkout's.
  const record = path.join(copy, 'node_modules', '.package-lock.json');
  rmSync(record);
  copyFileSync(path.join(ROOT, 'node_modules', '.package-lock.json'), record);
  const prefix = path.join(copy, '.npm-prefix');
  // The suite's own variables would make a nested `npm test` think it runs inside this one.
  const inherited = Object.entries(process.env).filter(([key]) => !/^(VITEST|TEST$|MODE$|NODE_ENV$|FORCE_COLOR$)/.test(key));
  env = {
    ...Object.fromEntries(inherited),
    PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH}`,
    npm_config_prefix: prefix,
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    NO_COLOR: '1',
  };
}, 120_000);

afterEach(() => {
  for (const child of running.splice(0)) if (child.pid !== undefined) killGroup(child.pid);
});

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/** A command that finishes: its exit code and output. */
async function run(command: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const started = startGroup('bash', ['-c', command], { cwd: copy, env, running });
  const timer = setTimeout(() => killGroup(started.child.pid!), timeoutMs);
  const code = await started.exited;
  clearTimeout(timer);
  return { code, output: started.output() };
}

/** The demo: started, and stopped as Ctrl+C stops it once it says it runs; nothing of it left. */
async function runDemo(command: string): Promise<void> {
  const demo = startGroup('bash', ['-c', command], { cwd: copy, env, running });
  const pgid = demo.child.pid!;
  await until(`"${command}" to run the demo`, () => /Drover is running/.test(demo.output()), 150_000, demo.output);
  const dir = /Drover is running on (\S+)drover\.config\.yaml/.exec(demo.output())?.[1];
  process.kill(-pgid, 'SIGINT');
  await demo.exited;
  await until('the demo to end', () => livingInGroup(pgid).length === 0, 5_000, demo.output);
  expect(dir && existsSync(dir)).toBe(false);
}

const quickStart = [...shellCommands(section('Two commands')), ...shellCommands(section('`drover` on the PATH'))];

describe('the README quick start, from a fresh copy', () => {
  it('shows the two commands and the way to a drover on the PATH', () => {
    expect(quickStart).toEqual(['npm install && npm start', 'npm test', 'npm run build', 'npm link', 'drover --help']);
    for (const command of NAMED_IN_TEXT) expect(readme()).toContain(`\`${command}\``);
  });

  it('runs every command as written', async () => {
    for (const command of [...quickStart, ...NAMED_IN_TEXT]) {
      if (command.includes('npm start')) {
        await runDemo(command);
      } else if (command === 'npm test') {
        // The whole suite is what runs this test: the copy runs one file of it, through the same script.
        const { code, output } = await run(`${command} -- --project unit test/docs/readme-config.test.ts`, 120_000);
        expect({ command, code, output }).toMatchObject({ code: 0 });
        expect(output).toMatch(/Tests +\d+ passed/);
      } else {
        const { code, output } = await run(command, 240_000);
        expect({ command, code, output }).toMatchObject({ code: 0 });
        if (command.endsWith('--help')) expect(output).toMatch(/^Usage: drover /m);
      }
    }
    // npm unlink -g drover took the link away again.
    expect(existsSync(path.join(env.npm_config_prefix!, 'bin', 'drover'))).toBe(false);
  }, 600_000);
});
