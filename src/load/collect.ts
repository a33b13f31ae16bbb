/**
 * One reconcile's look at a target's load, the one collection loop for every kind: each source
 * read at once through its kind's reader (load/registry.ts), each within its own deadline and
 * size limit, its reading added to its own samples, pruned to the stable window, and the samples
 * of all stored in one row (sample-store.ts). A source's read that fails leaves its samples as
 * they were and is reported as `failed`: its health (consecutive failures) is the plan's to
 * count, in the target's record.
 *
 * A push source's reading is the push not yet served (push-source.ts); a polled source is read.
 * A target without a `load` acts as one push source with
 * targetPerReplica 1: it never changes scale on its own, only when a reconcile brings a value,
 * which then is the replica count wanted.
 */
import type { LoadSpecConfig, NamedSourceConfig } from '../config/policy-schema.js';
import { MAX_LOAD } from '../limits.js';
import { clampLoad } from './load-number.js';
import { kindOf } from './registry.js';
import type { SampleSeries } from './sample-store.js';
import { SampleWindow } from './sample-window.js';
import type { Sample } from './samples.js';
import type { SourceReader, SourceReading } from './source-kind.js';
import { isSingle, SINGLE_SOURCE_NAME } from './sources.js';
import type { PushToServe } from './push-served.js';

/** A target without a `load`: one push source of replicas. */
export const IMPLICIT_LOAD: LoadSpecConfig = Object.freeze({
  sources: [Object.freeze({ source: 'push' as const, name: SINGLE_SOURCE_NAME, targetPerReplica: 1, metricType: 'total' as const, activationThreshold: 0 })],
  combine: 'max' as const,
});

export interface CollectPorts {
  readSeries(names: readonly string[]): Promise<SampleSeries>;
  /** `pushTag`: the push this reconcile served, recorded with the samples. */
  writeSeries(series: SampleSeries, pushTag?: string): Promise<void>;
  /** The reader of one polled source (its kind's `open` with the pass's ports). */
  reader(source: NamedSourceConfig): SourceReader;
}

/** What one source gave this reconcile. */
export interface CollectedSource {
  name: string;
  kind: string;
  samples: SampleWindow;
  /** A gauge (push): its last value holds. */
  holdLatest: boolean;
  /** Answered, failed, or not read (a push source without a push). */
  read: 'ok' | 'failed' | 'none';
  /** This reconcile's value, when it answered or was held (at: when read). */
  value?: { value: number; at: number };
  /** When the data it answered with was measured, for a kind that says (azureMonitor). */
  measuredAt?: number;
  note: string;
  /** Why its read failed (without its name). */
  error?: string;
}

export interface CollectedLoad {
  sources: CollectedSource[];
  /** "http 3" for one source; "a http 3; b http: … answered 503" for several. */
  note: string;
  /** Every failing source's error, joined; undefined when none failed. */
  error?: string;
}

export async function collectLoad(
  configured: LoadSpecConfig | undefined,
  push: PushToServe | undefined,
  ports: CollectPorts,
  options: { now: number; keepMs: number; persist: boolean; signal: AbortSignal },
): Promise<CollectedLoad> {
  const load = configured ?? IMPLICIT_LOAD;
  const single = configured === undefined || isSingle(load);
  const takesPush = pushTaker(load);
  const names = load.sources.map((s) => s.name);
  const pushed = takesPush ? push : undefined;
  // A kind with a minimum period needs its stored samples before it may be read; the others read at once.
  const gated = load.sources.some((s) => kindOf(s.source).traits.minPollIntervalMs !== undefined);
  const storedFirst = gated ? await ports.readSeries(names) : undefined;
  const readings = load.sources.map((s): Promise<Raw> =>
    storedFirst && !readDue(newestAt(storedFirst[s.name]), kindOf(s.source).traits.minPollIntervalMs, options.now)
      ? Promise.resolve('held')
      : readOne(s, s === takesPush ? pushed?.value : undefined, ports, options.signal),
  );
  const [stored, raw] = await Promise.all([storedFirst ?? ports.readSeries(names), Promise.all(readings)]);
  const sources = load.sources.map((config, i): CollectedSource => {
    const samples = SampleWindow.from(stored[config.name] ?? []);
    const gauge = kindOf(config.source).traits.sampling === 'gauge';
    const wasPushed = config === takesPush && pushed !== undefined;
    const taken = takeReading(samples, { kind: config.source, gauge }, raw[i], wasPushed, options.now, options.keepMs);
    const read = raw[i] === undefined ? 'none' : taken.error === undefined ? 'ok' : 'failed';
    const prefix = single ? '' : `${config.name} `;
    // A held source's last value stands for it until it may be read again, as a gauge's does.
    const holdLatest = gauge || raw[i] === 'held';
    const answer = raw[i];
    const measuredAt = typeof answer === 'object' && answer.ok ? answer.measuredAt : undefined;
    return { name: config.name, kind: config.source, samples, holdLatest, read, ...(taken.value ? { value: taken.value } : {}), ...(measuredAt !== undefined ? { measuredAt } : {}), note: `${prefix}${taken.note}`, ...(taken.error ? { error: taken.error } : {}) };
  });
  if (options.persist) {
    const retained = Object.fromEntries(sources.map((s) => [s.name, s.samples.toArray()]));
    // A served push is written even when the gauge did not move: the row records that it was served.
    if (!names.every((n) => sameSamples(stored[n] ?? [], retained[n]!)) || pushed) await ports.writeSeries(retained, pushed?.tag);
  }
  const errors = sources.flatMap((s) => (s.error ? [single ? s.error : `${s.name}: ${s.error}`] : []));
  return { sources, note: sources.map((s) => s.note).join('; '), ...(errors.length ? { error: errors.join('; ') } : {}) };
}

/** A reading, none (a push source without a push), or `held`: read too recently for its kind's minimum period. */
type Raw = SourceReading | undefined | 'held';

/**
 * Whether a source may be read now: always, unless its kind has a minimum period and its newest
 * stored sample (added when it was last read) is younger than that. The samples row is shared,
 * so the period holds across processes and restarts.
 */
export function readDue(lastReadAt: number | undefined, minPollIntervalMs: number | undefined, now: number): boolean {
  return minPollIntervalMs === undefined || lastReadAt === undefined || now - lastReadAt >= minPollIntervalMs;
}

function newestAt(samples: readonly Sample[] | undefined): number | undefined {
  return samples && samples.length > 0 ? Math.max(...samples.map((s) => s.at)) : undefined;
}

/** The source a push is for: the pushed kind's (a target has at most one); none for a target of polled sources. */
function pushTaker(load: LoadSpecConfig): NamedSourceConfig | undefined {
  return load.sources.find((s) => kindOf(s.source).traits.delivery === 'pushed');
}

/** A pushed kind's reading is the push not yet served (none: not read); a polled kind is read. */
async function readOne(config: NamedSourceConfig, pushed: number | undefined, ports: CollectPorts, signal: AbortSignal): Promise<SourceReading | undefined> {
  if (pushed !== undefined) return { ok: true, value: pushed };
  if (kindOf(config.source).traits.delivery === 'pushed') return undefined;
  try {
    return await ports.reader(config).read(signal);
  } catch (error) {
    // A reader never throws; one that does is a bug in its kind, kept to its source.
    return { ok: false, error: `${config.source} reader threw: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * Adds one reading (or its failure), within the load ceiling, to the samples and prunes them to
 * what the window may still read: the part of a reconcile's look at its load a replay shares.
 */
export function takeReading(
  samples: SampleWindow,
  source: { kind: string; gauge: boolean },
  raw: Raw,
  pushed: boolean,
  now: number,
  keepMs: number,
): { note: string; error?: string; value?: { value: number; at: number } } {
  if (raw === 'held') return heldReading(samples, source.kind, now, keepMs);
  const reading = bounded(raw);
  let taken: { note: string; error?: string; value?: { value: number; at: number } };
  if (reading === undefined) {
    taken = { note: source.gauge ? 'no new push' : 'no reading' };
  } else if (reading.ok) {
    samples.add(now, reading.value, source.gauge && pushed);
    const clamped = reading.clampedFrom !== undefined ? ` (clamped from ${reading.clampedFrom}: a load counts as at most ${MAX_LOAD})` : '';
    taken = { note: `${pushed ? 'pushed' : source.kind} ${reading.value}${clamped}`, value: { value: reading.value, at: now } };
  } else {
    taken = { note: `${source.kind}: ${reading.error}`, error: reading.error };
  }
  samples.prune(now, keepMs);
  return taken;
}

/** A source not read this time (its kind's minimum period): its newest sample is its reading. */
function heldReading(samples: SampleWindow, kind: string, now: number, keepMs: number): { note: string; value?: { value: number; at: number } } {
  samples.prune(now, keepMs);
  const at = samples.newestAt;
  const value = samples.newestValue;
  if (at === undefined || value === undefined) return { note: 'no reading' };
  return { note: `${kind} ${value} (read ${Math.round((now - at) / 1000)} s ago, not read again yet: its minimum period)`, value: { value, at } };
}

type BoundedReading = { ok: true; value: number; measuredAt?: number; clampedFrom?: number } | { ok: false; error: string };

/** Every sample within 0..MAX_LOAD, however it arrived: NaN or a negative is no sample. */
function bounded(reading: SourceReading | undefined): BoundedReading | undefined {
  if (!reading?.ok) return reading;
  const load = clampLoad(reading.value);
  if (!load) return { ok: false, error: `${reading.value} is not a load (a number ≥ 0)` };
  return load.clamped ? { ...reading, value: load.value, clampedFrom: reading.value } : { ...reading, value: load.value };
}

export function sameSamples(a: readonly Sample[], b: readonly Sample[]): boolean {
  return a.length === b.length && a.every((s, i) => s.at === b[i]!.at && s.value === b[i]!.value);
}
