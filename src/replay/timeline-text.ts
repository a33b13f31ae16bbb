/**
 * What `drover replay` prints after the summaries: each target's decisions, a line whenever the
 * desired scale, the scale or the rule that bound the decision changed, with the load then.
 * Under `--compare` the two configurations' timelines are merged on time and shown side by side
 * (desired, scale and bound by for each), a line whenever either changed. Written in chunks with
 * fixed column widths, so a week-long timeline never becomes one string.
 */
import type { BoundRule } from '../scaler/read/bound-rules.js';
import type { ReplayRunResult } from './report.js';
import type { Timeline } from './timeline.js';

interface Side {
  desired: number | undefined;
  scale: number;
  boundBy: BoundRule | undefined;
}

export interface DecisionLine {
  at: number;
  load: number;
  /** One per configuration; undefined before that configuration's first row. */
  sides: (Side | undefined)[];
}

const LINES_PER_CHUNK = 1_000;
const WIDTH = { time: 24, load: 10, desired: 7, scale: 5, boundBy: 19 };

/** The decision lines of timelines of one trace, merged on time. */
export function* decisionLines(timelines: readonly Timeline[]): Generator<DecisionLine> {
  const next = timelines.map(() => 0);
  const sides: (Side | undefined)[] = timelines.map(() => undefined);
  let load = 0;
  let shown: string | undefined;
  for (;;) {
    const times = timelines.map((t, k) => (next[k]! < t.length ? t.get('at', next[k]!) : Infinity));
    const at = Math.min(...times);
    if (at === Infinity) return;
    timelines.forEach((t, k) => {
      if (times[k] !== at) return;
      const row = t.row(next[k]!++);
      sides[k] = { desired: row.desired, scale: row.scale, boundBy: row.boundBy };
      // Every configuration replays the same trace: the first one's load stands for all.
      if (k === 0 || times[0] !== at) load = row.load;
    });
    const key = JSON.stringify(sides);
    if (key === shown) continue;
    shown = key;
    yield { at, load, sides: [...sides] };
  }
}

/** Each target's decision lines as text; with a comparison, the second configuration beside the first. */
export function* renderTimelines(main: ReplayRunResult, compare?: ReplayRunResult): Generator<string> {
  for (const target of main.targets) {
    const other = compare?.targets.find((t) => t.name === target.name);
    const runs = other ? [main, compare!] : [main];
    yield `target ${target.name}: decisions (a line whenever the desired scale, the scale or what bound it changed)\n`;
    yield header(runs.map((r) => r.config));
    let chunk: string[] = [];
    for (const line of decisionLines(other ? [target.timeline, other.timeline] : [target.timeline])) {
      chunk.push(format(line));
      if (chunk.length === LINES_PER_CHUNK) {
        yield chunk.join('');
        chunk = [];
      }
    }
    yield `${chunk.join('')}\n`;
  }
}

const SIDE_WIDTH = WIDTH.desired + WIDTH.scale + WIDTH.boundBy + 6;

function header(configs: readonly string[]): string {
  const lead = ' '.repeat(WIDTH.time + WIDTH.load + 2);
  const names = configs.length > 1 ? `${lead}${configs.map((c) => `  ${keepEnd(c, SIDE_WIDTH - 2).padEnd(SIDE_WIDTH - 2)}`).join('').trimEnd()}\n` : '';
  const columns = ['time'.padEnd(WIDTH.time), 'load'.padStart(WIDTH.load), ...configs.map(() => sideCells('desired', 'scale', 'bound by'))];
  return `${names}${columns.join('  ').trimEnd()}\n`;
}

function format(line: DecisionLine): string {
  const cells = [new Date(line.at).toISOString().padEnd(WIDTH.time), String(line.load).padStart(WIDTH.load)];
  for (const side of line.sides) cells.push(side ? sideCells(side.desired === undefined ? '-' : String(side.desired), String(side.scale), side.boundBy ?? '-') : sideCells('', '', ''));
  return `${cells.join('  ').trimEnd()}\n`;
}

function sideCells(desired: string, scale: string, boundBy: string): string {
  return [desired.padStart(WIDTH.desired), scale.padStart(WIDTH.scale), boundBy.padEnd(WIDTH.boundBy)].join('  ');
}

/** A long configuration path keeps its end, where the file name is. */
function keepEnd(text: string, width: number): string {
  return text.length <= width ? text : `…${text.slice(text.length - width + 1)}`;
}
