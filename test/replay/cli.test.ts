// `drover replay` end to end through the command line: files in, JSON, tables and HTML out,
// and exit 2 with the line and field for input it cannot run on.
import { truncateSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { drover } from '../support/cli.js';
import { tempDir, writeConfig } from '../support/config.js';

const dir = tempDir();

function target(name: string, targetPerReplica: number) {
  return {
    name,
    scaleTargetRef: { kind: 'Deployment', name },
    policy: 'knative',
    activator: { probeUrl: 'http://127.0.0.1:1/healthz' },
    scaleToZero: { stableWindow: '60s', gracePeriod: '30s' },
    load: { source: 'push', targetPerReplica },
  };
}

const tenPer = writeConfig({ kubernetes: {}, targets: [target('web', 10)] }, dir, 'ten.yaml');
const fivePer = writeConfig({ kubernetes: {}, targets: [target('web', 5)] }, dir, 'five.yaml');
const limited = writeConfig({ kubernetes: {}, targets: [{ ...target('web', 10), maxScale: 4, behavior: { scaleUp: { policies: [{ type: 'Pods', value: 1, period: '30s' }] } } }] }, dir, 'limited.yaml');
const paused = writeConfig({ kubernetes: {}, targets: [{ ...target('web', 10), paused: true }] }, dir, 'paused.yaml');
// The default policy (no policy key): only the bounds and the load.
const adaptive = writeConfig({ kubernetes: {}, targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, minScale: 1, scaleToZero: { enabled: false }, load: { source: 'push', targetPerReplica: 10 } }] }, dir, 'adaptive.yaml');
const two = writeConfig({ kubernetes: {}, targets: [target('web', 10), target('api', 10)] }, dir, 'two.yaml');
/** The default policy with its forecast set to `mode`. */
const forecasting = (mode: string) => writeConfig({ kubernetes: {}, targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, minScale: 1, scaleToZero: { enabled: false }, load: { source: 'push', targetPerReplica: 10 }, forecast: { mode } }] }, dir, `forecast-${mode}.yaml`);

/** The hand trace as CSV without a target column: 45 for 10 min, 0 for 10, 25 for 5, every 10 s. */
function handCsv(): string {
  const file = path.join(dir, 'hand.csv');
  const lines = ['time,load'];
  for (let s = 0; s <= 1500; s += 10) lines.push(`${s},${s < 600 ? 45 : s < 1200 ? 0 : 25}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

interface JsonRow {
  at: string;
  load: number;
  desired: number | null;
  scale: number;
  ready: number;
  boundBy: string | null;
  forecast?: { floor: number; wouldRaise: boolean };
}

function traceFile(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}


interface JsonReport {
  targets: { name: string; summary: { replicaMinutes: number; peakReplicas: number; wakesFromZero: number; from: string }; timeline: JsonRow[] }[];
  compare?: { targets: { name: string; summary: { replicaMinutes: number; peakReplicas: number } }[] };
}

describe('drover replay', () => {
  it('--json prints each target with its summary and a timeline with ISO times', async () => {
    const r = await drover('--config', tenPer, 'replay', '--trace', handCsv(), '--ready-delay', '5s', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as JsonReport;
    const web = report.targets[0]!;
    expect(web.name).toBe('web');
    expect(web.summary.peakReplicas).toBe(5);
    expect(web.summary.wakesFromZero).toBe(2);
    expect(web.summary.from).toBe('1970-01-01T00:00:00.000Z');
    expect(web.timeline[0]).toEqual({ at: '1970-01-01T00:00:00.000Z', load: 45, desired: 5, scale: 5, ready: 0, boundBy: null });
    expect(web.timeline[1]).toMatchObject({ at: '1970-01-01T00:00:05.000Z', ready: 5 });
  });

  it('--compare with 5 per replica: the two summaries side by side, about twice the replica-minutes', async () => {
    const json = await drover('--config', tenPer, 'replay', '--trace', handCsv(), '--ready-delay', '5s', '--compare', fivePer, '--json');
    const report = JSON.parse(json.stdout) as JsonReport;
    const [a, b] = [report.targets[0]!.summary, report.compare!.targets[0]!.summary];
    expect(b.peakReplicas).toBe(9);
    expect(b.replicaMinutes / a.replicaMinutes).toBeGreaterThan(1.7);
    expect(b.replicaMinutes / a.replicaMinutes).toBeLessThan(2);

    const table = await drover('--config', tenPer, 'replay', '--trace', handCsv(), '--ready-delay', '5s', '--compare', fivePer);
    expect(table.code).toBe(0);
    const line = table.stdout.split('\n').find((l) => l.startsWith('replica-minutes'))!;
    expect(line).toContain(a.replicaMinutes.toFixed(1));
    expect(line).toContain(b.replicaMinutes.toFixed(1));
    expect(line).toContain(`+${(b.replicaMinutes - a.replicaMinutes).toFixed(1)}`);
    expect(table.stdout.split('\n').find((l) => l.startsWith('peak replicas'))).toMatch(/5\s+9\s+\+4$/);
  });

  it('--out writes one self-contained HTML file: uPlot inlined, both configurations drawn', async () => {
    const out = path.join(dir, 'report.html');
    const r = await drover('--config', tenPer, 'replay', '--trace', handCsv(), '--compare', fivePer, '--out', out);
    expect(r.code).toBe(0);
    const html = await readFile(out, 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    expect(html).toContain('uPlot');
    expect(html).toContain('desired (five.yaml)'.replace('five.yaml', fivePer));
    expect(html).toContain(`ready (${tenPer})`);
  });

  it('JSON lines with target names replay each target', async () => {
    const file = traceFile('two.jsonl', ['{"time":"2026-11-30T10:00:00Z","target":"web","load":45}', '{"time":"2026-11-30T10:00:00Z","target":"api","load":5}', '{"time":"2026-11-30T10:05:00Z","target":"web","load":45}'].join('\n'));
    const report = JSON.parse((await drover('--config', two, 'replay', '--trace', file, '--json')).stdout) as JsonReport;
    expect(report.targets.map((t) => [t.name, t.summary.peakReplicas])).toEqual([['web', 5], ['api', 1]]);
    expect(report.targets[0]!.summary.from).toBe('2026-11-30T10:00:00.000Z');
  });

  it.each<{ name: string; file?: string; trace: string; message: RegExp }>([
    { name: 'a load that is no number: the line and the field', trace: 'time,load\n0,45\n10,lots\n', message: /trace line 3: load: expected a number/ },
    { name: 'a time that is no time', trace: 'time,load\n0,45\nyesterday,4\n', message: /trace line 3: time: expected an ISO 8601 time/ },
    { name: 'times going backwards', trace: 'time,load\n0,45\n20,4\n10,4\n', message: /trace line 4: time: goes backwards/ },
    { name: 'a JSON line that is no object', file: 'bad.jsonl', trace: '{"time":0,"load":1}\n[1,2]\n', message: /trace line 2: line: not a JSON object/ },
    { name: 'a header without time', trace: 'when,load\n0,45\n', message: /trace line 1: header/ },
    { name: 'a column naming no source of the target', trace: 'time,value\n0,45\n', message: /trace line 2: value: names no source of target "web"/ },
    { name: 'a target not in the configuration', trace: 'time,target,load\n0,web,45\n10,shop,4\n', message: /trace line 3: target: no target named "shop"/ },
    { name: 'a time of 1e300 seconds', trace: 'time,load\n0,45\n1e300,4\n', message: /trace line 3: time: "1e300" is later than the latest time a trace may hold \(253,402,300,799 s, 9999-12-31T23:59:59Z\)/ },
    { name: 'a 3,000-year span', trace: 'time,load\n1000-01-01T00:00:00Z,45\n4000-01-01T00:00:00Z,4\n', message: /trace line 3: time: the trace would span more than 366 days/ },
    { name: 'a span of a day over a year in seconds', trace: 'time,load\n0,45\n31708800,4\n', message: /trace line 3: time: the trace would span more than 366 days/ },
  ])('exit 2 for $name', async ({ file, trace, message }) => {
    const r = await drover('--config', tenPer, 'replay', '--trace', traceFile(file ?? 'bad.csv', trace));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('refuses a 64 MiB line fast, naming its line, and a 10 GB (sparse) file before reading it', async () => {
    const long = traceFile('long.csv', `time,load\n0,45\n${'9'.repeat(64 * 1024 * 1024)}\n`);
    const started = Date.now();
    const r = await drover('--config', tenPer, 'replay', '--trace', long);
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/trace line 3: line: longer than 64 KiB/)]);
    expect(Date.now() - started).toBeLessThan(5_000);
    const sparse = traceFile('sparse.csv', 'time,load\n');
    truncateSync(sparse, 10 * 1024 ** 3);
    const big = await drover('--config', tenPer, 'replay', '--trace', sparse);
    expect([big.code, big.stderr]).toEqual([2, expect.stringMatching(/trace file: 10,737,418,240 bytes; a trace may have at most 1,073,741,824 \(1 GiB\)/)]);
  }, 20_000);

  it('with --target, rows of the other configured targets are skipped, and a row naming an unknown one still exits 2', async () => {
    const file = traceFile('mixed.csv', 'time,target,load\n0,web,45\n0,api,5\n10,web,45\n');
    const report = JSON.parse((await drover('--config', two, 'replay', '--trace', file, '--target', 'api', '--json')).stdout) as JsonReport;
    expect(report.targets.map((t) => t.name)).toEqual(['api']);
    const unknown = await drover('--config', two, 'replay', '--trace', traceFile('unknown.csv', 'time,target,load\n0,api,5\n10,shop,4\n'), '--target', 'api');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/trace line 3: target: no target named "shop"/);
  });

  it('exit 2 for --target naming no configured target, and for a trace file that is not there', async () => {
    const unknown = await drover('--config', tenPer, 'replay', '--trace', handCsv(), '--target', 'shop');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no target named "shop"/);
    const missing = await drover('--config', tenPer, 'replay', '--trace', path.join(dir, 'nope.csv'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the trace/);
  });

  it('rows without a target need a configuration with one target', async () => {
    const r = await drover('--config', two, 'replay', '--trace', handCsv());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/trace line 2: target: .*2 targets/);
  });
});

/** The decision lines `drover replay` prints after the summary, each split into its cells. */
function decisionCells(stdout: string): string[][] {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith('time ')) + 1;
  const end = lines.indexOf('', start);
  return lines.slice(start, end).map((l) => l.trim().split(/\s+/));
}

describe('drover replay: what bound each decision', () => {
  it('prints a line whenever the decision changed, naming the rule that bound it', async () => {
    const r = await drover('--config', limited, 'replay', '--trace', handCsv(), '--ready-delay', '5s');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('target web: decisions');
    const cells = decisionCells(r.stdout);
    // time, load, desired, scale, bound by: one replica more each 30 s, up to maxScale 4.
    expect(cells.slice(0, 4)).toEqual([
      ['1970-01-01T00:00:00.000Z', '45', '5', '1', 'ScaleUpLimit'],
      ['1970-01-01T00:00:30.000Z', '45', '5', '2', 'ScaleUpLimit'],
      ['1970-01-01T00:01:00.000Z', '45', '5', '3', 'ScaleUpLimit'],
      ['1970-01-01T00:01:30.000Z', '45', '5', '4', 'TooManyReplicas'],
    ]);
    expect(cells.map((c) => c[4])).toContain('ScaleToZeroPending');
  });

  it('--compare shows both configurations side by side on each line: desired, scale and bound by for each', async () => {
    const r = await drover('--config', tenPer, 'replay', '--trace', handCsv(), '--ready-delay', '5s', '--compare', limited);
    expect(r.code).toBe(0);
    const header = r.stdout.split('\n').find((l) => l.startsWith('time '))!;
    expect(header.trim().split(/\s{2,}/)).toEqual(['time', 'load', 'desired', 'scale', 'bound by', 'desired', 'scale', 'bound by']);
    const names = r.stdout.split('\n')[r.stdout.split('\n').indexOf(header) - 1]!;
    expect(names.indexOf('ten.yaml')).toBeGreaterThan(0);
    expect(names.indexOf('limited.yaml')).toBeGreaterThan(names.indexOf('ten.yaml'));
    const cells = decisionCells(r.stdout);
    expect(cells[0]).toEqual(['1970-01-01T00:00:00.000Z', '45', '5', '5', '-', '5', '1', 'ScaleUpLimit']);
    expect(cells[1]).toEqual(['1970-01-01T00:00:30.000Z', '45', '5', '5', '-', '5', '2', 'ScaleUpLimit']);
  });

  it('a paused configuration beside a running one: Paused on every line of its side, its scale untouched', async () => {
    const r = await drover('--config', tenPer, 'replay', '--trace', handCsv(), '--compare', paused, '--initial-scale', '2');
    const cells = decisionCells(r.stdout);
    expect(cells.length).toBeGreaterThan(3);
    expect(cells.every((c) => c[6] === '2' && c[7] === 'Paused')).toBe(true);
    // The running configuration beside it still goes 5 → 1 → 0 → 3.
    expect(new Set(cells.map((c) => c[3]))).toEqual(new Set(['5', '1', '0', '3']));
  });

  it('the default policy names its rules on the rows it holds: a fall of the load held by ScaleDownEvidence, in --json and in the table', async () => {
    // 45 for 10 minutes (5 replicas), then 15 (2): a young target's level (its last two start-up
    // delays) falls with the load, while its evidence window (4 minutes: the shorter of the two
    // weighed, none calibrated yet) still holds the 5s.
    const lines = ['time,load'];
    for (let s = 0; s <= 1200; s += 10) lines.push(`${s},${s < 600 ? 45 : 15}`);
    const trace = traceFile('fall.csv', `${lines.join('\n')}\n`);
    const json = JSON.parse((await drover('--config', adaptive, 'replay', '--trace', trace, '--json')).stdout) as JsonReport;
    const held = json.targets[0]!.timeline.filter((row) => row.boundBy === 'ScaleDownEvidence');
    expect(held.length).toBeGreaterThan(0);
    // Each held row is after the fall, above what the load alone asks (2): the 5 held until the window has passed.
    expect(held.map((row) => [row.load, row.desired, row.scale])).toEqual(expect.arrayContaining([[15, 2, 5]]));
    expect(held.every((row) => row.load === 15 && row.scale > 2)).toBe(true);
    const cells = decisionCells((await drover('--config', adaptive, 'replay', '--trace', trace)).stdout);
    expect(cells.some((c) => c.at(-1) === 'ScaleDownEvidence')).toBe(true);
  });

  it('forecast: floor raises ahead of a rise seen the day before, named ForecastFloor in --json and the table; observe only says it would, deciding as off does', async () => {
    // Two days, a minute a row: 20 a minute (2 replicas), 200 from 09:00 to 10:00 (20).
    const lines = ['time,load'];
    for (let m = 0; m <= 2 * 1_440; m++) lines.push(`${m * 60},${m % 1_440 >= 540 && m % 1_440 < 600 ? 200 : 20}`);
    const trace = traceFile('daily.csv', `${lines.join('\n')}\n`);
    const run = async (mode: string) => (JSON.parse((await drover('--config', forecasting(mode), 'replay', '--trace', trace, '--ready-delay', '30s', '--json')).stdout) as JsonReport).targets[0]!.timeline;
    const [floor, observe, off] = [await run('floor'), await run('observe'), await run('off')];
    const beforeRise = (row: JsonRow) => row.at >= '1970-01-02T08:30' && row.at < '1970-01-02T09:00';
    // Floor: raised on the second day before 09:00, while the load is still 20, up to what 200 asks.
    const raised = floor.filter((row) => row.boundBy === 'ForecastFloor');
    expect(raised.length).toBeGreaterThan(0);
    expect(raised.every(beforeRise)).toBe(true);
    expect(raised.every((row) => row.load === 20 && row.forecast!.wouldRaise && row.scale === row.forecast!.floor)).toBe(true);
    expect(Math.max(...raised.map((row) => row.scale))).toBe(20);
    // Pods ready 30 s after a raise: off meets 09:00 with what 20 asked for; floor with the 20 replicas 200 asks for, ready.
    const at9 = (rows: JsonRow[]) => rows.findLast((row) => row.at <= '1970-01-02T09:00:00.000Z')!;
    expect(at9(floor).ready).toBe(20);
    expect(at9(off).ready).toBeLessThan(20);
    // Observe: the same floor would have raised, and nothing it decided differs from off.
    expect(observe.some((row) => beforeRise(row) && row.forecast?.wouldRaise && row.forecast.floor === 20)).toBe(true);
    expect(observe.some((row) => row.boundBy === 'ForecastFloor')).toBe(false);
    // The rows where what was decided changed (observe has more: one whenever the floor changed).
    const values = ({ at: _at, forecast: _forecast, ...row }: JsonRow) => JSON.stringify(row);
    const decided = (rows: JsonRow[]) => rows.filter((row, i) => i === 0 || values(row) !== values(rows[i - 1]!)).map(({ forecast: _forecast, ...row }) => row);
    expect(decided(observe)).toEqual(decided(off));
    expect(off.some((row) => row.forecast)).toBe(false);
    const cells = decisionCells((await drover('--config', forecasting('floor'), 'replay', '--trace', trace)).stdout);
    expect(cells.some((c) => c.at(-1) === 'ForecastFloor')).toBe(true);
  });

  it('--json gives each timeline row its boundBy, null where the load\'s answer stood', async () => {
    const r = await drover('--config', limited, 'replay', '--trace', handCsv(), '--json');
    const timeline = (JSON.parse(r.stdout) as JsonReport).targets[0]!.timeline;
    expect(timeline[0]).toMatchObject({ scale: 1, boundBy: 'ScaleUpLimit' });
    expect(timeline.some((row) => row.boundBy === null)).toBe(true);
    expect(timeline.find((row) => row.scale === 4)?.boundBy).toBe('TooManyReplicas');
  });
});
