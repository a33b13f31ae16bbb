/** `drover replay`'s command line: what it asks of the configuration, and its help. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { tempDir, writeConfig } from '../support/config.js';

async function drover(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {} });
  return { code, stdout, stderr };
}

describe('drover replay', () => {
  it('replays a configuration without the kubernetes and azure sections it never uses', async () => {
    const dir = tempDir();
    const config = writeConfig(
      {
        pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' } }],
        targets: [
          { name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, minScale: 1, load: { source: 'push', targetPerReplica: 10 } },
          { name: 'batch', scaleTargetRef: { kind: 'Pool', name: 'workers' }, minScale: 1, load: { source: 'push', targetPerReplica: 10 } },
        ],
      },
      dir,
    );
    const trace = path.join(dir, 'trace.csv');
    writeFileSync(trace, 'time,target,load\n0,web,25\n0,batch,5\n120,web,25\n');
    const r = await drover('--config', config, 'replay', '--trace', trace, '--json');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const report = JSON.parse(r.stdout) as { targets: { name: string; summary: { peakReplicas: number } }[] };
    expect(report.targets.map((t) => [t.name, t.summary.peakReplicas])).toEqual([['web', 3], ['batch', 1]]);
  });

  it('still refuses such a configuration where it would be used', async () => {
    const config = writeConfig({ targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, minScale: 1 }] });
    const r = await drover('--config', config, 'status');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('targets[0].scaleTargetRef: a Kubernetes target needs the kubernetes section');
  });

  it('--help prints the default schedule as it is written', async () => {
    const r = await drover('replay', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--schedule <schedule>\s+the timer: NCRONTAB or a period such as 30s\s+\(default: 0 \*\/1 \* \* \* \*\)/);
    expect(r.stdout).not.toContain('description');
  });
});
