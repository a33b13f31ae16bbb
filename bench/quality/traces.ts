/**
 * The quality bench's traces (`../shared/traces`, read in place, never copied), as load per minute
 * on index time, each with the window that is scored and the units it is scored in (the issue's
 * scoring contract):
 * - NASA-HTTP 1995: per-minute sums of the per-second counts. The week 2–8 July is indices
 *   86,400 … 691,199 (the table's week), 9–15 July the unseen one; each replays from the day
 *   before as warm-up. The `.tbz2` is streamed through `tar -xjO` into memory (no file written).
 * - Azure LLM 2023, code and conv: requests per minute from the first arrival, the whole hour.
 * - NASA iPSC 1993: jobs in progress (the time-average over each minute), the first full week
 *   (Monday 4 – Sunday 10 October 1993) with the Sunday before as warm-up.
 * `--quick` keeps one scored day of each multi-day trace, after three hours of warm-up.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

export const MINUTE_MS = 60_000;
const DAY_MINUTES = 1_440;
/** `--quick`'s warm-up: the two hours the policy calibrates on and one more, not a whole day (the forecast then has no season, as on the LLM traces). */
const QUICK_WARM_UP_MINUTES = 180;

export interface QualityTrace {
  name: string;
  title: string;
  /** Load per minute from the replay's start (warm-up included), minute 0 at `startMs`. */
  load: readonly number[];
  /** The scored minutes: [scoredFrom, scoredTo) of `load`. */
  scoredFrom: number;
  scoredTo: number;
  /** Epoch ms of minute 0 (index time). */
  startMs: number;
  /** The linear p99 of the scored minutes ÷ 20 (NASA, iPSC) or ÷ 10 (LLM). */
  targetPerReplica: number;
  /** Which goals the issue sets on it. */
  goals: 'nasa' | 'llm' | 'none';
}

/** Thrown when the traces folder or one of its files is missing: the message names it and `--traces`. */
export class TracesMissingError extends Error {
  override name = 'TracesMissingError';
}

/** Linear-interpolated percentile (p in [0, 1]) of the values, as numpy's default. */
export function linearPercentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

function window(name: string, title: string, load: readonly number[], from: number, to: number, startMs: number, divisor: number, goals: QualityTrace['goals']): QualityTrace {
  const p99 = linearPercentile(load.slice(from, to), 0.99);
  return { name, title, load, scoredFrom: from, scoredTo: to, startMs, targetPerReplica: Math.max(p99 / divisor, 1e-9), goals };
}

function need(file: string): string {
  if (!existsSync(file)) throw new TracesMissingError(`trace file missing: ${file} (give the traces folder with --traces DIR)`);
  return file;
}

/** NASA-HTTP's per-second counts summed per minute, read from the bzip2 tar in memory. */
export async function readNasaHttpMinutes(dir: string): Promise<number[]> {
  const file = need(path.join(dir, 'nasa-http-1995', 'workload.tbz2'));
  const tar = spawn('tar', ['-xjOf', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let stderr = '';
  tar.stdout.on('data', (c: Buffer) => chunks.push(c));
  tar.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    tar.on('error', reject);
    tar.on('close', resolve);
  });
  if (code !== 0) throw new Error(`tar -xjOf ${file} exited ${code}: ${stderr.trim()}`);
  return perMinuteSums(Buffer.concat(chunks));
}

/**
 * Sums of each 60 consecutive whitespace-separated integers (the last minute may be partial),
 * read byte by byte: splitting 10 MB of text into 5 million strings cost more than the replay.
 */
export function perMinuteSums(bytes: Uint8Array): number[] {
  const minutes: number[] = [];
  let second = 0;
  let sum = 0;
  let value = 0;
  let inNumber = false;
  const DIGIT_0 = 48;
  for (let i = 0; i <= bytes.length; i++) {
    const c = i < bytes.length ? bytes[i]! : 32;
    if (c >= DIGIT_0 && c <= DIGIT_0 + 9) {
      value = value * 10 + (c - DIGIT_0);
      inNumber = true;
    } else if (c === 32 || c === 10 || c === 13 || c === 9) {
      if (!inNumber) continue;
      sum += value;
      value = 0;
      inNumber = false;
      if (++second % 60 === 0) {
        minutes.push(sum);
        sum = 0;
      }
    } else {
      throw new Error(`NASA-HTTP workload: byte ${i} is not a digit or white space`);
    }
  }
  if (second % 60 !== 0) minutes.push(sum);
  return minutes;
}

/** Requests per minute from the first arrival of an Azure LLM trace (TIMESTAMP column, to the microsecond). */
export function llmMinutes(csv: string): number[] {
  const lines = csv.split('\n').slice(1).filter((l) => l.trim() !== '');
  const micros = lines.map((l) => {
    const stamp = l.slice(0, l.indexOf(',')).trim();
    const [whole, fraction = ''] = stamp.split('.');
    return Date.parse(`${whole!.replace(' ', 'T')}Z`) * 1000 + Number(fraction.slice(0, 6).padEnd(6, '0'));
  });
  const first = micros[0]!;
  const minutes: number[] = [];
  for (const t of micros) {
    const m = Math.floor((t - first) / (MINUTE_MS * 1000));
    while (minutes.length <= m) minutes.push(0);
    minutes[m]!++;
  }
  return minutes;
}

/** Jobs in progress, averaged over each minute, from an SWF log (field 2 start, field 4 run time). */
export function jobsInProgressMinutes(swf: string, fromMinute: number, toMinute: number): number[] {
  const seconds = new Float64Array(toMinute - fromMinute);
  for (const line of swf.split('\n')) {
    if (line.startsWith(';') || line.trim() === '') continue;
    const f = line.trim().split(/\s+/);
    const start = Number(f[1]);
    const run = Number(f[3]);
    if (!(run > 0)) continue;
    // The seconds of [start, start + run) falling in each minute of the window.
    const end = start + run;
    for (let m = Math.max(fromMinute, Math.floor(start / 60)); m < toMinute && m * 60 < end; m++) {
      seconds[m - fromMinute]! += Math.min(end, (m + 1) * 60) - Math.max(start, m * 60);
    }
  }
  return Array.from(seconds, (s) => s / 60);
}

export async function loadQualityTraces(dir: string, quick: boolean): Promise<QualityTrace[]> {
  if (!existsSync(dir)) throw new TracesMissingError(`no traces folder at ${dir} (give it with --traces DIR; it holds nasa-http-1995/, azure-llm-2023/ and nasa-ipsc-1993/)`);
  const days = quick ? 1 : 7;
  const warmUp = quick ? QUICK_WARM_UP_MINUTES : DAY_MINUTES;
  const nasa = await readNasaHttpMinutes(dir);
  const nasaWeek = (firstDay: number, name: string, title: string) => {
    // The warm-up before the scored days; minute 0 is the warm-up's first.
    const from = firstDay * DAY_MINUTES - warmUp;
    return window(name, title, nasa.slice(from, (firstDay + days) * DAY_MINUTES), warmUp, warmUp + DAY_MINUTES * days, from * MINUTE_MS, 20, 'nasa');
  };
  const llm = (which: 'code' | 'conv') => {
    const load = llmMinutes(readFileSync(need(path.join(dir, 'azure-llm-2023', `AzureLLMInferenceTrace_${which}.csv`)), 'utf8'));
    return window(`llm-${which}`, `Azure LLM ${which}, the whole hour`, load, 0, load.length, 0, 10, 'llm');
  };
  const swf = gunzipSync(readFileSync(need(path.join(dir, 'nasa-ipsc-1993', 'NASA-iPSC-1993-3.1-cln.swf.gz')))).toString('latin1');
  // Scored from Monday 4 October (day 3 of the log), after its warm-up.
  const ipscFrom = 3 * DAY_MINUTES - warmUp;
  const ipsc = jobsInProgressMinutes(swf, ipscFrom, ipscFrom + warmUp + days * DAY_MINUTES);
  return [
    nasaWeek(1, 'nasa-week', quick ? 'NASA-HTTP 2 July 1995' : 'NASA-HTTP 2–8 July 1995'),
    nasaWeek(8, 'nasa-week-2', quick ? 'NASA-HTTP 9 July 1995' : 'NASA-HTTP 9–15 July 1995'),
    // Two more weeks, judged by the same goals: windows the policy's constants were first chosen without.
    nasaWeek(15, 'nasa-week-3', quick ? 'NASA-HTTP 16 July 1995' : 'NASA-HTTP 16–22 July 1995'),
    nasaWeek(22, 'nasa-week-4', quick ? 'NASA-HTTP 23 July 1995' : 'NASA-HTTP 23–29 July 1995'),
    llm('code'),
    llm('conv'),
    window('ipsc', quick ? 'NASA iPSC jobs in progress, 4 Oct 1993' : 'NASA iPSC jobs in progress, 4–10 Oct 1993', ipsc, warmUp, ipsc.length, ipscFrom * MINUTE_MS, 20, 'none'),
  ];
}
