/**
 * Child processes started the way a terminal starts them, in a process group of their own, so a
 * test can signal the whole group (as Ctrl+C does) and check that nothing of it is left.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

export interface Started {
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr interleaved. */
  output: () => string;
  /** Its exit code, or null when a signal ended it. */
  exited: Promise<number | null>;
}

/** Starts a group leader; `running` collects it so an afterEach can kill what a failed test left. */
export function startGroup(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; running: ChildProcess[] }): Started {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  options.running.push(child);
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** Processes of a group that have not ended (zombies waiting to be reaped have). */
export function livingInGroup(pgid: number): string[] {
  const ps = execFileSync('ps', ['-e', '-o', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, group, stat]) => Number(group) === pgid && !stat?.startsWith('Z'))
    .map((fields) => fields.join(' '));
}

export async function until(what: string, check: () => boolean, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}; it printed:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
