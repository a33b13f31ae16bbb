/**
 * One reconcile's look at a target's load: the push not yet served (push-source.ts), or a
 * reading of the configured source, added to the stored samples (which are pruned to the
 * stable window). A target without a load source acts as a push source with
 * targetPerReplica 1: it never changes scale on its own, only when a reconcile brings a
 * value, which then is the replica count wanted.
 */
import type { QueueClient } from '@azure/storage-queue';
import type { LoadSourceConfig } from '../config/schema.js';
import { readHttpLoad, type LoadReading } from './http-source.js';
import { readQueueLoad, type QueueSourceConfig } from './queue-source.js';
import { MAX_LOAD } from '../limits.js';
import { clampLoad } from './load-number.js';
import { SampleWindow } from './sample-window.js';
import type { Sample } from './samples.js';
import type { PushToServe } from './push-source.js';

const IMPLICIT_SOURCE: LoadSourceConfig = Object.freeze({ source: 'push', targetPerReplica: 1 });

export interface LoadPorts {
  readSamples(): Promise<Sample[]>;
  /** `pushTag`: the push this reconcile served, recorded with the samples. */
  writeSamples(samples: readonly Sample[], pushTag?: string): Promise<void>;
  /** A client for a `queue` source's queue. */
  queueClient(source: QueueSourceConfig): QueueClient;
}

export interface CollectedLoad {
  /** The stored samples with this reconcile's, pruned to what the window may still read (a SampleWindow here; plain arrays read the same). */
  samples: SampleWindow | readonly Sample[];
  /** A push source is a gauge: its last value holds. */
  gauge: boolean;
  targetPerReplica: number;
  /** What this reconcile learnt, for the decision log: "pushed 25", "http 3", "http: … answered 503". */
  note: string;
  /** Set when the source was read and gave no sample. */
  error?: string;
}

export async function collectLoad(
  source: LoadSourceConfig | undefined,
  pushed: PushToServe | undefined,
  ports: LoadPorts,
  options: { now: number; keepMs: number; persist: boolean; signal?: AbortSignal },
): Promise<CollectedLoad> {
  const config = source ?? IMPLICIT_SOURCE;
  const gauge = config.source === 'push';
  const served = gauge ? pushed : undefined;
  const [stored, reading] = await Promise.all([ports.readSamples(), readSource(config, served?.value, ports, options.signal)]);
  const samples = SampleWindow.from(stored);
  const { note, error } = takeReading(samples, config, reading, served !== undefined, options.now, options.keepMs);
  if (options.persist) {
    const retained = samples.toArray();
    // A served push is written even when the gauge did not move: the row records that it was served.
    if (!sameSamples(stored, retained) || served) await ports.writeSamples(retained, served?.tag);
  }
  return { samples, gauge, targetPerReplica: config.targetPerReplica, note, ...(error ? { error } : {}) };
}

/**
 * Adds one reading (or its failure), within the load ceiling, to the samples and prunes them to
 * what the window may still read: the part of a reconcile's look at its load a replay shares.
 */
export function takeReading(
  samples: SampleWindow,
  source: LoadSourceConfig | undefined,
  raw: LoadReading | undefined,
  pushed: boolean,
  now: number,
  keepMs: number,
): { note: string; error?: string } {
  const config = source ?? IMPLICIT_SOURCE;
  const gauge = config.source === 'push';
  const reading = bounded(raw);
  let note: string;
  let error: string | undefined;
  if (reading === undefined) {
    note = gauge ? 'no new push' : 'no reading';
  } else if (reading.ok) {
    samples.add(now, reading.value, gauge && pushed);
    note = `${pushed ? 'pushed' : config.source} ${reading.value}${reading.clampedFrom !== undefined ? ` (clamped from ${reading.clampedFrom}: a load counts as at most ${MAX_LOAD})` : ''}`;
  } else {
    error = reading.error;
    note = `${config.source}: ${reading.error}`;
  }
  samples.prune(now, keepMs);
  return error === undefined ? { note } : { note, error };
}

type BoundedReading = { ok: true; value: number; clampedFrom?: number } | { ok: false; error: string };

/** Every sample within 0..MAX_LOAD, however it arrived: NaN or a negative is no sample. */
function bounded(reading: LoadReading | undefined): BoundedReading | undefined {
  if (!reading?.ok) return reading;
  const load = clampLoad(reading.value);
  if (!load) return { ok: false, error: `${reading.value} is not a load (a number ≥ 0)` };
  return load.clamped ? { ok: true, value: load.value, clampedFrom: reading.value } : { ok: true, value: load.value };
}

/** A push source's reading is the push not yet served; the others are read. */
function readSource(config: LoadSourceConfig, pushed: number | undefined, ports: LoadPorts, signal?: AbortSignal): Promise<LoadReading | undefined> {
  switch (config.source) {
    case 'push':
      return Promise.resolve(pushed === undefined ? undefined : { ok: true, value: pushed });
    case 'http':
      return readHttpLoad(config, signal);
    case 'queue':
      return readQueueLoad(ports.queueClient(config), signal);
  }
}

export function sameSamples(a: readonly Sample[], b: readonly Sample[]): boolean {
  return a.length === b.length && a.every((s, i) => s.at === b[i]!.at && s.value === b[i]!.value);
}
