/**
 * What the command line says when a value is wrong: one line naming the option and the form it
 * takes, no usage text after it, exit code 2; and one wording for one bad duration.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { parseConfigText } from '../../src/config/load.js';

async function drover(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {} });
  return { code, stdout, stderr };
}

const DURATION = 'expected a duration such as "90s", "5m" or "1h30m"';

describe('a bad option value', () => {
  it.each([
    { args: ['enqueue', '--target', 'web', '--delay', '5x'], line: `error: --delay: invalid duration "5x": not a number followed by a unit; ${DURATION}` },
    { args: ['enqueue', '--target', 'web', '--delay', '90'], line: `error: --delay: invalid duration "90": missing unit (use ns, us, ms, s, m or h); ${DURATION}` },
    { args: ['sim', '--for', '5x'], line: `error: --for: invalid duration "5x": not a number followed by a unit; ${DURATION}` },
    { args: ['reconcile', '--budget', '0s'], line: 'error: --budget: expected a duration > 0 and at most 24h' },
    { args: ['replay', '--trace', 't.csv', '--ready-delay', '-1s'], line: 'error: --ready-delay: must not be negative' },
    { args: ['replay', '--trace', 't.csv', '--schedule', 'often'], line: expect.stringMatching(/^error: --schedule: invalid schedule "often": /) },
    { args: ['enqueue', '--target', 'web', '--load', 'lots'], line: expect.stringMatching(/^error: --load: expected a decimal number/) },
  ])('$args: one line naming the option and its form', async ({ args, line }) => {
    const r = await drover(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toEqual([line, '']);
  });

  it('is said the same way wherever a duration is given: an option, or the configuration', async () => {
    const option = await drover('enqueue', '--target', 'web', '--delay', '5m30');
    const config = (() => {
      try {
        parseConfigText('kubernetes: {}\ntargets:\n  - name: web\n    minScale: 1\n    scaleTargetRef: { kind: Deployment, name: web }\n    activationTimeout: 5m30\n');
      } catch (err) {
        return (err as Error).message.split('\n')[1];
      }
    })();
    expect(option.stderr).toBe('error: --delay: invalid duration "5m30": missing unit (use ns, us, ms, s, m or h); expected a duration such as "90s", "5m" or "1h30m"\n');
    expect(config).toBe(`  targets[0].activationTimeout: ${option.stderr.slice('error: --delay: '.length, -1)}`);
  });
});
