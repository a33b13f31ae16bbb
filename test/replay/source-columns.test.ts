/**
 * Replay traces with a column per source (`time,web,jobs`, or JSON lines with those keys): each
 * source reads its own column, through the same pass as production; a lone `load` column still
 * feeds a one-source target. Errors name the line and column.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { replayTrace } from '../../src/replay/replay.js';
import { parseReplaySchedule } from '../../src/replay/schedule.js';
import { TraceParser, type TraceRow } from '../../src/replay/trace.js';

const parse = (lines: string[]): TraceRow[] => {
  const parser = new TraceParser();
  const rows = lines.flatMap((l) => parser.line(l) ?? []);
  parser.end();
  return rows;
};

const target = (load: Record<string, unknown>) =>
  parseConfig({
    kubernetes: {},
    targets: [{ name: 'api', scaleTargetRef: { kind: 'Deployment', name: 'api' }, minScale: 1, maxScale: 50, maxScaleDownRate: 1000, scaleToZero: { stableWindow: '30s' }, load }],
  });

const http = (name: string, targetPerReplica: number) => ({ name, source: 'http', url: `http://metrics.example/${name}`, targetPerReplica });
const options = { readyDelayMs: 1_000, schedule: parseReplaySchedule('*/15 * * * * *') };
const lastScale = async (config: ReturnType<typeof target>, rows: TraceRow[]) => {
  const [result] = await replayTrace(config, rows, options);
  return [...result!.timeline.rows()].at(-1)!.scale;
};

describe('trace columns named after the sources', () => {
  it('reads CSV and JSON lines alike, a value per named column, an empty cell leaving it out', () => {
    expect(parse(['time,web,jobs', '0,45,10', '15,,20']).map((r) => r.values)).toEqual([{ web: 45, jobs: 10 }, { jobs: 20 }]);
    expect(parse(['{"time":0,"web":45,"jobs":10}', '{"time":15,"jobs":20}']).map((r) => r.values)).toEqual([{ web: 45, jobs: 10 }, { jobs: 20 }]);
    expect(parse(['time,target,load', '0,api,7'])).toEqual([{ at: 0, target: 'api', load: 7, values: { load: 7 }, line: 2 }]);
  });

  it.each([
    ['a row with no value', ['time,web', '0,'], /trace line 2: load: expected a value/],
    ['a value that is not a number', ['time,web,jobs', '0,45,many'], /trace line 2: jobs: expected a number ≥ 0, got "many"/],
    ['a column that cannot be a source name', ['time,web-1'], /trace line 1: header: column "web-1" is not a source name/],
  ])('refuses %s, naming the line and column', (_name, lines, error) => {
    expect(() => parse(lines)).toThrow(error);
  });

  it('drives each source from its own column: max(web 45/10, jobs 20/5) = 5, then jobs alone rises to 40/5 = 8', async () => {
    const config = target({ sources: [http('web', 10), http('jobs', 5)] });
    const rows = parse(['time,web,jobs', ...Array.from({ length: 8 }, (_, i) => `${i * 15},45,20`)]);
    expect(await lastScale(config, rows)).toBe(5);
    const risen = parse(['time,web,jobs', ...Array.from({ length: 8 }, (_, i) => `${i * 15},45,20`), ...Array.from({ length: 8 }, (_, i) => `${120 + i * 15},,40`)]);
    expect(await lastScale(config, risen)).toBe(8);
  });

  it('feeds a one-source target from a lone load column, and each of several sources from it when they have no column', async () => {
    const rows = parse(['time,load', ...Array.from({ length: 8 }, (_, i) => `${i * 15},45`)]);
    expect(await lastScale(target({ source: 'http', url: 'http://metrics.example/q', targetPerReplica: 10 }), rows)).toBe(5);
    expect(await lastScale(target({ sources: [http('web', 10), http('jobs', 5)], combine: 'sum' }), rows)).toBe(5 + 9);
  });
});
