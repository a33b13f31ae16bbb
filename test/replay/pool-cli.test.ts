// `drover replay` of a Pool target through the command line: the pool's delays as options, the
// pool's timeline (wanted against ready) printed after the target's, and in --json.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { drover } from '../support/cli.js';
import { tempDir, writeConfig } from '../support/config.js';

const dir = tempDir();

const config = writeConfig(
  {
    pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' }, maxCount: 10, chunkSize: 4, creationRate: '0s,1', warm: { max: 1 } }],
    targets: [{ name: 'jobs', scaleTargetRef: { kind: 'Pool', name: 'workers' }, policy: 'knative', minScale: 1, maxScale: 10, load: { source: 'push', targetPerReplica: 10 } }],
  },
  dir,
  'pool.yaml',
);

/** One row a minute: 10 (1 VM) for 3 minutes, 40 (4 VMs) until minute 15, 10 again until 25, then 30. */
function trace(): string {
  const file = path.join(dir, 'jobs.csv');
  const lines = ['time,load'];
  for (let m = 0; m <= 30; m++) lines.push(`${m * 60},${m < 3 ? 10 : m < 15 ? 40 : m < 25 ? 10 : 30}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}


type PoolRow = { at: string; wanted: number | null; ready: number; creating: number; parked: number; capacity: number };

describe('drover replay of a Pool target', () => {
  it('exits 0 and prints the pool’s timeline, wanted against ready, with the creation delay given', async () => {
    const r = await drover('--config', config, 'replay', '--trace', trace(), '--initial-scale', '1', '--creation-delay', '2m', '--start-delay', '30s');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^pool workers, sized by target jobs: [\d.]+ VM-minutes \([\d.]+ parked\), peak 4 VMs, 4 created in 2 capacity raise\(s\), 1 started, 1 parked, 2 deleted by scale-in in 2 call\(s\)/m);
    const table = r.stdout.slice(r.stdout.indexOf('pool workers, sized by target jobs'));
    expect(table).toMatch(/^time {22}wanted {2}ready {2}creating {2}parked {2}capacity$/m);
    const rows = [...table.matchAll(/^(\S+Z) +(\d+|-) +(\d+) +(\d+) +(\d+) +(\d+)$/gm)].map((m) => ({ at: m[1]!, wanted: m[2]!, ready: Number(m[3]), creating: Number(m[4]), parked: Number(m[5]) }));
    // The raise at minute 3 (wanted 4), its VMs running 2 minutes later. Down to 1: one VM
    // parked (warm.max 1), two deleted. Up to 3: the parked VM started and one created in the
    // same pass, running 30 s and 2 minutes later.
    const minute = (row: { at: string }) => Date.parse(row.at) / 60_000;
    expect(rows.find((x) => x.wanted === '4' && x.creating === 3)).toBeDefined();
    expect(minute(rows.find((x) => x.ready === 4)!) - minute(rows.find((x) => x.wanted === '4' && x.creating === 3)!)).toBe(2);
    const parked = rows.filter((x) => x.parked === 1).at(-1)!;
    // Parked until the raise to 3: the pass that wanted count enqueues starts it at once.
    expect(parked).toMatchObject({ wanted: '1', ready: 1 });
    expect(rows[rows.indexOf(parked) + 1]).toMatchObject({ wanted: '3', parked: 0 });
    const woken = rows.find((x) => minute(x) >= 25 && x.creating > 0)!;
    expect(woken).toMatchObject({ wanted: '3', ready: 1, creating: 2, parked: 0 });
    expect(rows.find((x) => minute(x) === minute(woken) + 0.5)).toMatchObject({ ready: 2, creating: 1 });
    expect(rows.find((x) => minute(x) === minute(woken) + 2)).toMatchObject({ ready: 3, creating: 0 });
  });

  it('--json gives each target its pool: summary and timeline with ISO times', async () => {
    const r = await drover('--config', config, 'replay', '--trace', trace(), '--initial-scale', '1', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { targets: { name: string; pool: { name: string; summary: { vmsCreated: number; vmsStarted: number }; timeline: PoolRow[] } }[] };
    const pool = report.targets[0]!.pool;
    expect(pool.name).toBe('workers');
    expect(pool.summary.vmsCreated).toBe(4);
    expect(pool.summary.vmsStarted).toBe(1);
    expect(pool.timeline[0]).toEqual({ at: '1970-01-01T00:00:00.000Z', wanted: 1, ready: 1, creating: 0, parked: 0, capacity: 1 });
    // The default creation delay, 3 minutes, from the raise to the VMs ready.
    const raised = pool.timeline.find((x) => x.capacity === 4)!;
    expect(Date.parse(pool.timeline.find((x) => x.ready === 4)!.at) - Date.parse(raised.at)).toBe(180_000);
  });

  it('--help names both delays with their defaults, and a bad one is refused', async () => {
    const help = await drover('replay', '--help');
    // (Commander wraps the help at 80 columns.)
    const oneLine = help.stdout.replace(/\s+/g, ' ');
    expect(oneLine).toContain("--creation-delay <duration> a Pool target's pool: how long a VM of a capacity raise takes to run (default: 3m)");
    expect(oneLine).toContain("--start-delay <duration> a Pool target's pool: how long a parked VM (warm.max) takes to run once started (default: 40s)");
    const bad = await drover('--config', config, 'replay', '--trace', trace(), '--start-delay', '5x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--start-delay/);
  });
});
