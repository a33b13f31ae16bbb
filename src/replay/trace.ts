/**
 * Load traces, read as a stream: CSV with a header naming `time`, `load` and optionally
 * `target`, or JSON lines with the same fields. A time is ISO 8601 or seconds from the start
 * of the trace (counted from the epoch, so printed times read as offsets from 1970-01-01);
 * one trace uses one kind. Rows come out in time order or not at all: a line that does not
 * parse, or a time earlier than the line before, is a TraceError naming the line and field.
 */
import { createReadStream } from 'node:fs';

export interface TraceRow {
  /** Epoch ms. */
  at: number;
  /** Undefined when the trace names no target (the config then has one). */
  target: string | undefined;
  load: number;
  /** 1-based line in the file. */
  line: number;
}

export class TraceError extends Error {
  override name = 'TraceError';
  constructor(
    readonly line: number,
    readonly field: string,
    problem: string,
  ) {
    super(`trace line ${line}: ${field}: ${problem}`);
  }
}

type TimeKind = 'iso' | 'seconds';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Parses a trace line by line: `line` returns the row a line holds (none for a blank or the header). */
export class TraceParser {
  private lineNo = 0;
  private columns: { time: number; load: number; target: number } | undefined;
  private kind: TimeKind | undefined;
  private last = -Infinity;

  constructor(private format?: 'csv' | 'jsonl') {}

  line(raw: string): TraceRow | undefined {
    const lineNo = ++this.lineNo;
    const text = raw.trim();
    if (text === '') return undefined;
    this.format ??= text.startsWith('{') ? 'jsonl' : 'csv';
    let fields: { time: unknown; target: unknown; load: unknown };
    if (this.format === 'jsonl') {
      fields = jsonFields(text, lineNo);
    } else if (this.columns === undefined) {
      this.columns = csvHeader(text, lineNo);
      return undefined;
    } else {
      const columns = this.columns;
      const cells = text.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
      if (cells.length < Math.max(columns.time, columns.load, columns.target) + 1) throw new TraceError(lineNo, 'line', `expected ${columns.target >= 0 ? 3 : 2} fields, got ${cells.length}`);
      fields = { time: cells[columns.time], load: cells[columns.load], target: columns.target >= 0 ? cells[columns.target] : undefined };
    }
    const time = parseTime(fields.time, lineNo);
    if (this.kind !== undefined && time.kind !== this.kind) throw new TraceError(lineNo, 'time', `${time.kind === 'iso' ? 'an ISO time' : 'seconds from the start'} in a trace whose times are ${this.kind === 'iso' ? 'ISO times' : 'seconds from the start'}`);
    this.kind = time.kind;
    if (time.at < this.last) throw new TraceError(lineNo, 'time', `goes backwards (${String(fields.time)} is before the line above)`);
    this.last = time.at;
    return { at: time.at, target: parseTarget(fields.target, lineNo), load: parseLoad(fields.load, lineNo), line: lineNo };
  }

  /** At the end of the trace: a CSV file must have had its header. */
  end(): void {
    if (this.format === 'csv' && this.columns === undefined && this.lineNo > 0) throw new TraceError(this.lineNo, 'header', 'expected a header line "time,target,load"');
  }
}

/**
 * A trace file, streamed in batches of rows (one per chunk read: a row at a time would spend
 * more on promises than on parsing); `.jsonl`/`.ndjson` are JSON lines, `.csv` CSV, anything
 * else by its first line.
 */
export async function* readTraceFile(file: string): AsyncGenerator<TraceRow[]> {
  const parser = new TraceParser(/\.(jsonl|ndjson)$/i.test(file) ? 'jsonl' : /\.csv$/i.test(file) ? 'csv' : undefined);
  let rest = '';
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 16 })) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop()!;
    const rows: TraceRow[] = [];
    for (const line of lines) {
      const row = parser.line(line);
      if (row) rows.push(row);
    }
    yield rows;
  }
  const row = parser.line(rest);
  if (row) yield [row];
  parser.end();
}

function csvHeader(text: string, line: number): { time: number; load: number; target: number } {
  const names = text.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1').toLowerCase());
  const time = names.indexOf('time');
  const load = names.indexOf('load');
  if (time < 0 || load < 0) throw new TraceError(line, 'header', `expected a header naming time, load and optionally target, got "${text}"`);
  return { time, load, target: names.indexOf('target') };
}

function jsonFields(text: string, line: number): { time: unknown; target: unknown; load: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new TraceError(line, 'line', 'not a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new TraceError(line, 'line', 'not a JSON object');
  const o = parsed as Record<string, unknown>;
  return { time: o.time, target: o.target, load: o.load };
}

function parseTime(value: unknown, line: number): { at: number; kind: TimeKind } {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return { at: Math.round(value * 1000), kind: 'seconds' };
  if (typeof value === 'string') {
    if (NUMBER.test(value) && Number(value) >= 0) return { at: Math.round(Number(value) * 1000), kind: 'seconds' };
    const at = ISO.test(value) ? Date.parse(value) : NaN;
    if (Number.isFinite(at)) return { at, kind: 'iso' };
  }
  throw new TraceError(line, 'time', `expected an ISO 8601 time or seconds ≥ 0 from the start, got ${JSON.stringify(value ?? '')}`);
}

function parseLoad(value: unknown, line: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && NUMBER.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < 0) throw new TraceError(line, 'load', `expected a number ≥ 0, got ${JSON.stringify(value ?? '')}`);
  return n;
}

function parseTarget(value: unknown, line: number): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new TraceError(line, 'target', `expected a target name, got ${JSON.stringify(value)}`);
  return value;
}
