/**
 * Load traces, read as a stream: CSV with a header naming `time`, optionally `target`, and one
 * column per source (`time,web,jobs`; a lone `load` column feeds a one-source target, or every
 * source), or JSON lines with the same fields. An empty cell (a key left out) leaves that
 * source's value as the row before gave it. A time is ISO 8601 or seconds from the start
 * of the trace (counted from the epoch, so printed times read as offsets from 1970-01-01);
 * one trace uses one kind. Rows come out in time order or not at all: a line that does not
 * parse, or a time earlier than the line before, is a TraceError naming the line and field.
 *
 * A replay steps a virtual clock through the whole trace, so a trace is bounded before it can
 * run for ever: at most MAX_TRACE_BYTES (1 GiB) of file, lines of at most MAX_TRACE_LINE_BYTES
 * (64 KiB, refused as soon as a line grows past it, which also ends a sparse file of zeros at
 * once), times no later than 9999-12-31T23:59:59Z (253,402,300,799 s) and a span of at most
 * MAX_TRACE_SPAN_MS (366 days) from the first row to the last. Each bound is a TraceError that
 * names it (exit 2).
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { clampLoad } from '../load/load-number.js';

export const MAX_TRACE_BYTES = 1024 ** 3;
export const MAX_TRACE_LINE_BYTES = 64 * 1024;
export const MAX_TRACE_SPAN_MS = 366 * 86_400_000;
/** The latest time an ISO time of the format can write; seconds from the start stop there too. */
export const MAX_TRACE_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export interface TraceRow {
  /** Epoch ms. */
  at: number;
  /** Undefined when the trace names no target (the config then has one). */
  target: string | undefined;
  /** The row's first value (its `load` column when there is one): the timeline's load. */
  load: number;
  /** Each value column the row fills, by name (`load`, or a source's name); absent: `{ load }`. */
  values?: Record<string, number>;
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
    super(line > 0 ? `trace line ${line}: ${field}: ${problem}` : `trace ${field}: ${problem}`);
  }
}

type TimeKind = 'iso' | 'seconds';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Parses a trace line by line: `line` returns the row a line holds (none for a blank or the header). */
export class TraceParser {
  private lineNo = 0;
  private columns: Columns | undefined;
  private kind: TimeKind | undefined;
  private last = -Infinity;
  private first: number | undefined;

  constructor(private format?: 'csv' | 'jsonl') {}

  line(raw: string): TraceRow | undefined {
    const lineNo = ++this.lineNo;
    const text = raw.trim();
    if (text === '') return undefined;
    this.format ??= text.startsWith('{') ? 'jsonl' : 'csv';
    let fields: Fields;
    if (this.format === 'jsonl') {
      fields = jsonFields(text, lineNo);
    } else if (this.columns === undefined) {
      this.columns = csvHeader(text, lineNo);
      return undefined;
    } else {
      fields = csvFields(this.columns, text, lineNo);
    }
    const time = parseTime(fields.time, lineNo);
    if (this.kind !== undefined && time.kind !== this.kind) throw new TraceError(lineNo, 'time', `${time.kind === 'iso' ? 'an ISO time' : 'seconds from the start'} in a trace whose times are ${this.kind === 'iso' ? 'ISO times' : 'seconds from the start'}`);
    this.kind = time.kind;
    if (time.at < this.last) throw new TraceError(lineNo, 'time', `goes backwards (${String(fields.time)} is before the line above)`);
    this.first ??= time.at;
    if (time.at - this.first > MAX_TRACE_SPAN_MS) {
      throw new TraceError(lineNo, 'time', `the trace would span more than ${MAX_TRACE_SPAN_MS / 86_400_000} days (from ${new Date(this.first).toISOString()} to ${new Date(time.at).toISOString()}); replay a part of it`);
    }
    this.last = time.at;
    const values = Object.fromEntries(Object.entries(fields.values).filter(([, v]) => v !== undefined && v !== '').map(([name, v]) => [name, parseLoad(v, name, lineNo)]));
    const first = values.load ?? Object.values(values)[0];
    if (first === undefined) throw new TraceError(lineNo, 'load', 'expected a value: a load column or one named after a source');
    return { at: time.at, target: parseTarget(fields.target, lineNo), load: first, values, line: lineNo };
  }

  /** The 1-based number of the line the next call reads. */
  get nextLine(): number {
    return this.lineNo + 1;
  }

  /** At the end of the trace: a CSV file must have had its header. */
  end(): void {
    if (this.format === 'csv' && this.columns === undefined && this.lineNo > 0) throw new TraceError(this.lineNo, 'header', 'expected a header line such as "time,target,load" or "time,web,jobs"');
  }
}

/**
 * A trace file, streamed in batches of rows (one per chunk read: a row at a time would spend
 * more on promises than on parsing); `.jsonl`/`.ndjson` are JSON lines, `.csv` CSV, anything
 * else by its first line. Only each new chunk is split, and an unfinished line is kept to at
 * most MAX_TRACE_LINE_BYTES, so reading stays linear in the file's size whatever its lines.
 */
export async function* readTraceFile(file: string): AsyncGenerator<TraceRow[]> {
  const { size } = await stat(file);
  if (size > MAX_TRACE_BYTES) throw new TraceError(0, 'file', `${size.toLocaleString('en-US')} bytes; a trace may have at most ${MAX_TRACE_BYTES.toLocaleString('en-US')} (1 GiB): replay a part of it`);
  const parser = new TraceParser(formatOf(file));
  let rest = '';
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 16 })) {
    const lines = (chunk as string).split('\n');
    lines[0] = rest + lines[0]!;
    rest = lines.pop()!;
    const rows: TraceRow[] = [];
    for (const line of lines) {
      checkLineLength(line, parser.nextLine);
      const row = parser.line(line);
      if (row) rows.push(row);
    }
    checkLineLength(rest, parser.nextLine);
    yield rows;
  }
  const row = parser.line(rest);
  if (row) yield [row];
  parser.end();
}

/**
 * The times of a trace file's first and last rows, read from its two ends without the middle
 * (at most 2 lines' bound from the head, 1 from the tail), so a replay can weigh its work before
 * any; undefined when an end does not read as a row (the full read then names the line).
 */
export async function traceEnds(file: string): Promise<{ first: number; last: number } | undefined> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const read = async (position: number, length: number) => {
      const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - position)));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      return buffer.subarray(0, bytesRead).toString('utf8');
    };
    const parser = new TraceParser(formatOf(file));
    const headBytes = 2 * MAX_TRACE_LINE_BYTES + 2;
    const head = (await read(0, headBytes)).split('\n');
    // Its last line may be cut short, unless the read reached the end of the file.
    if (size > headBytes) head.pop();
    let first: TraceRow | undefined;
    for (const line of head) if ((first = parser.line(line))) break;
    const tailStart = Math.max(0, size - MAX_TRACE_LINE_BYTES - 2);
    const tail = (await read(tailStart, size - tailStart)).split('\n').filter((line) => line.trim() !== '');
    const lastLine = tail.length > (tailStart > 0 ? 1 : 0) ? tail.at(-1) : undefined;
    const last = first && lastLine !== undefined ? parser.line(lastLine) : undefined;
    return first && last ? { first: first.at, last: last.at } : undefined;
  } catch (err) {
    if (err instanceof TraceError) return undefined;
    throw err;
  } finally {
    await handle.close();
  }
}

function formatOf(file: string): 'csv' | 'jsonl' | undefined {
  return /\.(jsonl|ndjson)$/i.test(file) ? 'jsonl' : /\.csv$/i.test(file) ? 'csv' : undefined;
}

/** UTF-16 units bound the UTF-8 bytes from below, so a line is measured only when it might be over. */
function checkLineLength(line: string, lineNo: number): void {
  if (line.length > MAX_TRACE_LINE_BYTES || (line.length * 3 > MAX_TRACE_LINE_BYTES && Buffer.byteLength(line) > MAX_TRACE_LINE_BYTES)) {
    throw new TraceError(lineNo, 'line', `longer than ${MAX_TRACE_LINE_BYTES / 1024} KiB; a trace line holds one time, target and load`);
  }
}

type Fields = { time: unknown; target: unknown; values: Record<string, unknown> };
/** The header's columns: where time and target are, and each value column's name by position. */
type Columns = { time: number; target: number; values: [name: string, index: number][] };
const COLUMN_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;

function csvHeader(text: string, line: number): Columns {
  const names = text.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
  const lower = names.map((n) => n.toLowerCase());
  const time = lower.indexOf('time');
  const target = lower.indexOf('target');
  const values = names.flatMap((name, i): [string, number][] => (i === time || i === target ? [] : [[lower[i] === 'load' ? 'load' : name, i]]));
  if (time < 0 || values.length === 0) throw new TraceError(line, 'header', `expected a header naming time, optionally target, and a load column or one per source (time,web,jobs), got "${text}"`);
  const bad = values.find(([name]) => !COLUMN_NAME.test(name));
  if (bad) throw new TraceError(line, 'header', `column "${bad[0]}" is not a source name (1–32 letters, digits or "_")`);
  return { time, target, values };
}

function csvFields(columns: Columns, text: string, line: number): Fields {
  const cells = text.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
  const width = Math.max(columns.time, columns.target, ...columns.values.map(([, i]) => i)) + 1;
  if (cells.length < width) throw new TraceError(line, 'line', `expected ${width} fields, got ${cells.length}`);
  return { time: cells[columns.time], target: columns.target >= 0 ? cells[columns.target] : undefined, values: Object.fromEntries(columns.values.map(([name, i]) => [name, cells[i]])) };
}

function jsonFields(text: string, line: number): Fields {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new TraceError(line, 'line', 'not a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new TraceError(line, 'line', 'not a JSON object');
  const { time, target, ...values } = parsed as Record<string, unknown>;
  const bad = Object.keys(values).find((name) => !COLUMN_NAME.test(name));
  if (bad !== undefined) throw new TraceError(line, bad, 'not a source name (1–32 letters, digits or "_")');
  return { time, target, values: values.load === undefined ? values : { ...values, load: values.load } };
}

function parseTime(value: unknown, line: number): { at: number; kind: TimeKind } {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && NUMBER.test(value) ? Number(value) : undefined;
  if (seconds !== undefined && Number.isFinite(seconds) && seconds >= 0) return { at: withinTimeBound(Math.round(seconds * 1000), value, line), kind: 'seconds' };
  if (typeof value === 'string' && seconds === undefined) {
    const at = ISO.test(value) ? Date.parse(value) : NaN;
    if (Number.isFinite(at)) return { at: withinTimeBound(at, value, line), kind: 'iso' };
  }
  throw new TraceError(line, 'time', `expected an ISO 8601 time or seconds ≥ 0 from the start, got ${clip(value)}`);
}

function withinTimeBound(at: number, value: unknown, line: number): number {
  if (at > MAX_TRACE_TIME_MS) throw new TraceError(line, 'time', `${clip(value)} is later than the latest time a trace may hold (${Math.floor(MAX_TRACE_TIME_MS / 1000).toLocaleString('en-US')} s, 9999-12-31T23:59:59Z)`);
  return at;
}

/** A value for an error message, cut short: a line may be 64 KiB. */
function clip(value: unknown): string {
  const text = JSON.stringify(value ?? '');
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function parseLoad(value: unknown, field: string, line: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && NUMBER.test(value) ? Number(value) : NaN;
  // A decimal too large for a double (`1e309`) reads as Infinity: past the ceiling, as a source's would be.
  if (Number.isNaN(n) || n < 0) throw new TraceError(line, field, `expected a number ≥ 0, got ${clip(value)}`);
  // As a reconcile keeps a reading: a load past the ceiling counts as the ceiling.
  return clampLoad(n)!.value;
}

function parseTarget(value: unknown, line: number): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new TraceError(line, 'target', `expected a target name, got ${JSON.stringify(value)}`);
  return value;
}
