/**
 * The demo as people run it, in its own process group: `npm start` (which bundles sim/ and the
 * command line into dist/start/) or the bundle itself. Ctrl+C in a terminal reaches the whole
 * group, Azurite included; an IDE's stop button sends SIGTERM to npm alone. Either way nothing
 * may be left: no process of the group, no temporary folder.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { killGroup, livingInGroup, startGroup, until } from '../support/process-group.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const running: ChildProcess[] = [];

beforeAll(() => {
  // What `npm start` runs first; the SIGTERM test goes through npm and so builds it again.
  execFileSync(NPM, ['run', '--silent', 'prestart'], { cwd: ROOT, stdio: 'ignore' });
}, 60_000);

afterEach(() => {
  // A failed test must not leave its demo running.
  for (const child of running.splice(0)) if (child.pid !== undefined) killGroup(child.pid);
});

const start = (command: string, args: string[]) => startGroup(command, args, { cwd: ROOT, running });

const tempDirOf = (out: string) => /Drover is running on (\S+)drover\.config\.yaml/.exec(out)?.[1];

it('Ctrl+C in the middle of a pass: the demo, Azurite with it, is gone within 2 s, its temporary folder too', async () => {
  const demo = start(process.execPath, ['dist/start/main.js', '--verbose']);
  const pgid = demo.child.pid!;
  await until('the demo to run', () => /Drover is running/.test(demo.output()), 60_000, demo.output);
  expect(livingInGroup(pgid).some((p) => p.includes('azurite'))).toBe(true);
  const dir = tempDirOf(demo.output());
  expect(dir && existsSync(dir)).toBe(true);
  // The command it prints for a second terminal works from any directory, with no registry involved.
  const printed = /In another terminal: +node (\/\S+\/cli\.js) (--config \S+ status)/.exec(demo.output());
  expect(printed).not.toBeNull();
  const status = execFileSync(process.execPath, [printed![1]!, ...printed![2]!.split(' ')], { cwd: tmpdir(), encoding: 'utf8' });
  expect(status).toMatch(/POOLS \(1\)/);
  // The next timer pass under way (its first line, with --verbose): now the signal comes.
  const passes = () => demo.output().match(/reconcileTimer: executing/g)?.length ?? 0;
  const seen = passes();
  await until('the next pass', () => passes() > seen, 30_000, demo.output);
  // --verbose lines carry their time, as the lines of changes do.
  const executing = demo.output().split('\n').filter((line) => line.includes('reconcileTimer: executing'));
  expect(executing.filter((line) => !/^\d{2}:\d{2}:\d{2} {4}\S/.test(line))).toEqual([]);

  const sent = Date.now();
  process.kill(-pgid, 'SIGINT');
  await demo.exited;
  await until('the group to end', () => livingInGroup(pgid).length === 0, 2_000, demo.output);
  expect(Date.now() - sent).toBeLessThan(2_000);
  expect(existsSync(dir!)).toBe(false);
  expect(demo.output()).toMatch(/Stopping the demo/);
  // The host stopped while storage still answered: nothing was retried against a closed port.
  expect(demo.output()).not.toMatch(/ECONNREFUSED/);
}, 90_000);

it('npm start speaks within seconds; SIGTERM to npm alone (an IDE stop button) leaves no process of the demo, nor its temporary folder', async () => {
  const spawned = Date.now();
  const npm = start(NPM, ['start']);
  const pgid = npm.child.pid!;
  // npm start bundles (no full tsc build): its first line comes within seconds, even on a busy machine.
  await until('the first line', () => /Starting the demo/.test(npm.output()), 60_000, npm.output);
  expect(Date.now() - spawned).toBeLessThan(10_000);
  await until('the demo to run', () => /Drover is running/.test(npm.output()), 60_000, npm.output);
  const dir = tempDirOf(npm.output());
  expect(dir && existsSync(dir)).toBe(true);

  process.kill(pgid, 'SIGTERM');
  await until('the group to end', () => livingInGroup(pgid).length === 0, 5_000, npm.output);
  expect(existsSync(dir!)).toBe(false);
}, 90_000);

it('a demo whose parent is killed outright stops by itself, Azurite with it', async () => {
  // A parent that starts the demo and is then killed without a chance to pass anything on.
  const parent = start(process.execPath, [
    '-e',
    "require('node:child_process').spawn(process.execPath, ['dist/start/main.js'], { stdio: 'inherit' }); setInterval(() => {}, 1000);",
  ]);
  const pgid = parent.child.pid!;
  await until('the demo to run', () => /Drover is running/.test(parent.output()), 60_000, parent.output);
  const dir = tempDirOf(parent.output());

  process.kill(pgid, 'SIGKILL');
  await until('the group to end', () => livingInGroup(pgid).length === 0, 5_000, parent.output);
  expect(existsSync(dir!)).toBe(false);
}, 90_000);
