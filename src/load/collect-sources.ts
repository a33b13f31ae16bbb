/**
 * One reconcile's look at a target with several load sources (`load.sources`): every source read
 * at once, each within its own deadline and size limit (an http source's `timeout` and 64 KiB
 * body, a queue's QUEUE_READ_TIMEOUT_MS), its reading added to its own samples, pruned to the
 * stable window, and the samples of all stored in one row (sample-store.ts). A source's read
 * that fails leaves its samples as they were and is reported as `failed`: its health (consecutive
 * failures) is the plan's to count, in the target's record. A pushed value is the push source's
 * reading, the push not yet served (push-source.ts).
 */
import type { QueueClient } from '@azure/storage-queue';
import type { SeveralSourcesConfig } from './sources.js';
import { sameSamples, takeReading } from './collect.js';
import { readHttpLoad, type LoadReading } from './http-source.js';
import { readQueueLoad, type QueueSourceConfig } from './queue-source.js';
import type { SampleSeries } from './sample-store.js';
import { SampleWindow } from './sample-window.js';
import type { PushToServe } from './push-source.js';

export interface SeriesPorts {
  readSeries(names: readonly string[]): Promise<SampleSeries>;
  /** `pushTag`: the push this reconcile served, recorded with the samples. */
  writeSeries(series: SampleSeries, pushTag?: string): Promise<void>;
  queueClient(source: QueueSourceConfig): QueueClient;
}

/** What one source gave this reconcile. */
export interface CollectedSource {
  name: string;
  samples: SampleWindow;
  /** A push source is a gauge: its last value holds. */
  holdLatest: boolean;
  /** Answered, failed, or not read (a push source without a push). */
  read: 'ok' | 'failed' | 'none';
  note: string;
  error?: string;
}

export interface CollectedSources {
  sources: CollectedSource[];
  /** "a 3; b: … answered 503" for the decision log. */
  note: string;
  /** Every failing source's error, joined; undefined when none failed. */
  error?: string;
}

export async function collectSources(
  load: SeveralSourcesConfig,
  push: PushToServe | undefined,
  ports: SeriesPorts,
  options: { now: number; keepMs: number; persist: boolean; signal?: AbortSignal },
): Promise<CollectedSources> {
  const names = load.sources.map((s) => s.name);
  const pushed = load.sources.some((s) => s.source === 'push') ? push : undefined;
  const [stored, readings] = await Promise.all([ports.readSeries(names), Promise.all(load.sources.map((s) => readOne(s, pushed?.value, ports, options.signal)))]);
  const sources = load.sources.map((config, i): CollectedSource => {
    const samples = SampleWindow.from(stored[config.name] ?? []);
    const reading = readings[i];
    const wasPushed = config.source === 'push' && pushed !== undefined;
    const taken = takeReading(samples, config, reading, wasPushed, options.now, options.keepMs);
    const read = reading === undefined ? 'none' : reading.ok && taken.error === undefined ? 'ok' : 'failed';
    return { name: config.name, samples, holdLatest: config.source === 'push', read, note: `${config.name} ${taken.note}`, ...(taken.error ? { error: `${config.name}: ${taken.error}` } : {}) };
  });
  if (options.persist) {
    const retained = Object.fromEntries(sources.map((s) => [s.name, s.samples.toArray()]));
    // A served push is written even when the gauge did not move: the row records that it was served.
    if (!names.every((n) => sameSamples(stored[n] ?? [], retained[n]!)) || pushed) await ports.writeSeries(retained, pushed?.tag);
  }
  const errors = sources.flatMap((s) => (s.error ? [s.error] : []));
  return { sources, note: sources.map((s) => s.note).join('; '), ...(errors.length ? { error: errors.join('; ') } : {}) };
}

function readOne(config: SeveralSourcesConfig['sources'][number], pushed: number | undefined, ports: SeriesPorts, signal?: AbortSignal): Promise<LoadReading | undefined> {
  switch (config.source) {
    case 'push':
      return Promise.resolve(pushed === undefined ? undefined : { ok: true, value: pushed });
    case 'http':
      return readHttpLoad(config, signal);
    case 'queue':
      return readQueueLoad(ports.queueClient(config), signal);
  }
}
