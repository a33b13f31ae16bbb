/**
 * Load traces, read as a stream: CSV with a header naming `time`, `load` and optionally
 * `target`, or JSON lines with the same fields. A time is ISO 8601 or seconds from the start
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
    super(line > 0 ? `trace line ${line}: ${field}: ${problem}` : `trace ${field}: ${problem}`);
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
  private first: number | undefined;

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
    this.first ??= time.at;
    if (time.at - this.first > MAX_TRACE_SPAN_MS) {
      throw new TraceError(lineNo, 'time', `the trace would span more than ${MAX_TRACE_SPAN_MS / 86_400_000} days (from ${new Date(this.first).toISOString()} to ${new Date(time.at).toISOString()}); replay a part of it`);
    }
    this.last = time.at;
    return { at: time.at, target: parseTarget(fields.target, lineNo), load: parseLoad(fields.load, lineNo), line: lineNo };
  }

  /** The 1-based number of the line the next call reads. */
  get nextLine(): number {
    return this.lineNo + 1;
  }

  /** At the end of the trace: a CSV file must have had its header. */
  end(): void {
    if (this.format === 'csv' && this.columns === undefined && this.lineNo > 0) throw new TraceError(this.lineNo, 'header', 'expected a header line "time,target,load"');
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

function parseLoad(value: unknown, line: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && NUMBER.test(value) ? Number(value) : NaN;
  // A decimal too large for a double (`1e309`) reads as Infinity: past the ceiling, as a source's would be.
  if (Number.isNaN(n) || n < 0) throw new TraceError(line, 'load', `expected a number ≥ 0, got ${clip(value)}`);
  // As a reconcile keeps a reading: a load past the ceiling counts as the ceiling.
  return clampLoad(n)!.value;
}

function parseTarget(value: unknown, line: number): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new TraceError(line, 'target', `expected a target name, got ${JSON.stringify(value)}`);
  return value;
}
