// `drover replay`'s bounds on its input (issue 31): a timer that would make more than
// MAX_REPLAY_RECONCILES reconciles over the trace is refused at once, naming the figure and
// the bound; a load past the ceiling (1e15, as a source's) counts as the ceiling.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayTrace, ReplayInputError } from '../../src/replay/replay.js';
import { parseReplaySchedule } from '../../src/replay/schedule.js';
import { traceEnds } from '../../src/replay/trace.js';
import { parseConfigText } from '../../src/config/load.js';
import { drover } from '../support/cli.js';
import { tempDir, writeConfig } from '../support/config.js';

const dir = tempDir();
const web = {
  name: 'web',
  scaleTargetRef: { kind: 'Deployment', name: 'web' },
  minScale: 1,
  maxScale: 50,
  load: { source: 'push', targetPerReplica: 10 },
};
const config = writeConfig({ targets: [web] }, dir, 'web.yaml');
const YEAR_S = 366 * 86_400;

function traceFile(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('replay refuses a timer that would make too many reconciles, before any work', () => {
  it.each<[string, string, string[], RegExp]>([
    ['--schedule 100ms over a 366-day trace', `time,load\n0,10\n${YEAR_S},10\n`, ['--schedule', '100ms'], /every 100ms\) would make 316,224,001 reconciles over the trace's 366 days; a replay makes at most 10,000,000/],
    ['NCRONTAB every second over a 366-day trace, in JSON lines', `{"time":0,"load":10}\n{"time":${YEAR_S},"load":10}`, ['--schedule', '* * * * * *'], /\(\* \* \* \* \* \*\) would make 31,708,800 reconciles .* at most 10,000,000/],
    ['a compared configuration\'s own timer', `time,load\n0,10\n${YEAR_S},10\n`, ['--compare', config, '--compare-schedule', '1s'], /every 1s\) would make 31,622,401 reconciles .* at most 10,000,000/],
  ])('%s: exit 2 at once, naming the figure and the bound', async (name, trace, args, message) => {
    const file = traceFile(name.includes('JSON') ? 'year.jsonl' : 'year.csv', trace);
    const started = Date.now();
    const r = await drover('--config', config, 'replay', '--trace', file, ...args);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(message);
    expect(Date.now() - started).toBeLessThan(3_000);
  }, 10_000);

  it('ten minutes at 100ms (6,001 reconciles) are within the bound', async () => {
    const r = await drover('--config', config, 'replay', '--trace', traceFile('minutes.csv', 'time,load\n0,10\n600,10\n'), '--schedule', '100ms', '--json');
    expect([r.code, r.stderr]).toEqual([0, '']);
  }, 20_000);

  it('rows that come past the bound are refused as they come, when the ends could not be read ahead', async () => {
    const parsed = parseConfigText(JSON.stringify({ targets: [web] }), 'web.yaml', { offline: true });
    const rows = [0, 60, YEAR_S].map((s, i) => ({ at: s * 1000, target: undefined, load: 10, line: i + 2 }));
    const replay = replayTrace(parsed, rows, { readyDelayMs: 0, schedule: parseReplaySchedule('100ms') });
    await expect(replay).rejects.toThrow(ReplayInputError);
    await expect(replay).rejects.toThrow(/316,224,001 reconciles/);
  }, 10_000);
});

describe('replay reads a load past the ceiling as the ceiling', () => {
  it.each([
    ['CSV', 'huge.csv', 'time,load\n0,1e309\n60,1e309\n'],
    ['JSON lines', 'huge.jsonl', '{"time":0,"load":1e309}\n{"time":60,"load":1e309}\n'],
  ])('%s: a 1e309 load is 1e15, not refused', async (_kind, name, trace) => {
    const r = await drover('--config', config, 'replay', '--trace', traceFile(name, trace), '--json');
    expect([r.code, r.stderr]).toEqual([0, '']);
    const report = JSON.parse(r.stdout) as { targets: { timeline: { load: number; scale: number }[] }[] };
    expect(report.targets[0]!.timeline[0]).toMatchObject({ load: 1e15, scale: 50 });
  });
});

describe('the refusal names the span in its own unit', () => {
  it('an hour at 100us: 36,000,001 reconciles over the trace\'s 1 hour', async () => {
    const r = await drover('--config', config, 'replay', '--trace', traceFile('hour.csv', 'time,load\n0,10\n3600,10\n'), '--schedule', '100us');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/every 100us\) would make 36,000,001 reconciles over the trace's 1 hour; a replay makes at most 10,000,000 per target/);
  });
});

describe('the trace\'s two ends, read ahead without the middle', () => {
  const middle = Array.from({ length: 20_000 }, (_, i) => `${i + 1},5`).join('\n');
  it.each<[string, string, string, { first: number; last: number } | undefined]>([
    ['one row', 'one.csv', 'time,load\n7,5\n', { first: 7_000, last: 7_000 }],
    ['no newline after the last row', 'open.csv', 'time,load\n0,5\n90,5', { first: 0, last: 90_000 }],
    ['blank lines at the end', 'blank.csv', 'time,load\n0,5\n90,5\n\n\n', { first: 0, last: 90_000 }],
    ['JSON lines in a file named neither', 'trace.txt', '{"time":3,"load":1}\n{"time":9,"load":1}\n', { first: 3_000, last: 9_000 }],
    ['a file longer than what is read at either end (149 KB)', 'long.csv', `time,load\n0,5\n${middle}\n86400,5\n`, { first: 0, last: 86_400_000 }],
    ['a last line that does not parse: left to the full read', 'bad.csv', 'time,load\n0,5\nsoon,5\n', undefined],
    ['a header and no row', 'empty.csv', 'time,load\n', undefined],
  ])('%s', async (_name, file, text, want) => {
    expect(await traceEnds(traceFile(file, text))).toEqual(want);
  });
});
