/** The command line run in-process, as a test drives it: its exit code and what it printed. */
import { runCli } from '../../src/cli.js';

export async function drover(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {} });
  return { code, stdout, stderr };
}
