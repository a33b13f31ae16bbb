/**
 * A target's load sources as a list (config load made a one-source `load` a list of one named
 * `load`), with what config checks, the pass and the deploy tools read of them through the
 * registry's traits.
 */
import type { LoadSpecConfig, NamedSourceConfig } from '../config/policy-schema.js';
import { SINGLE_SOURCE_NAME } from './source-kind.js';
import { kindOf } from './registry.js';

export { SINGLE_SOURCE_NAME };

export interface ListedSource {
  name: string;
  source: NamedSourceConfig;
  /** Active when its value is strictly above this (KEDA activationTargetValue). */
  activationThreshold: number;
  /** Where it sits in the target's configuration, for error messages. */
  path: (string | number)[];
}

/** Whether the target's `load` was written as one source (`load: { source, … }`): its paths and notes then name no source. */
export function isSingle(load: LoadSpecConfig | undefined): boolean {
  return load !== undefined && load.sources.length === 1 && load.sources[0]!.name === SINGLE_SOURCE_NAME;
}

export function loadSources(load: LoadSpecConfig | undefined): ListedSource[] {
  if (load === undefined) return [];
  const single = isSingle(load);
  return load.sources.map((source, j) => ({ name: source.name, source, activationThreshold: source.activationThreshold, path: single ? ['load'] : ['load', 'sources', j] }));
}

/**
 * A target whose every source holds its work while it sleeps (a queue, a pusher): it may go to
 * zero and wake without an activator. A target without a `load` is not one: nothing says where
 * its work waits.
 */
export function isQueueDriven(load: LoadSpecConfig | undefined): boolean {
  const sources = loadSources(load);
  return sources.length > 0 && sources.every((s) => kindOf(s.source.source).traits.holdsWork);
}

/**
 * How often the target's sources are polled: the shortest period any gives (absent: none is
 * polled), each source's raised to its kind's minimum (Azure Monitor: once a minute), so a short
 * `pollInterval` does not make the target sample a source more often than it is read.
 */
export function pollIntervalOf(load: LoadSpecConfig | undefined, fallbackMs: number): number | undefined {
  const polled = loadSources(load).filter((s) => kindOf(s.source.source).traits.delivery === 'polled');
  if (polled.length === 0) return undefined;
  const anyGiven = load?.pollInterval !== undefined || polled.some((s) => s.source.pollInterval !== undefined);
  const periods = polled.flatMap(({ source }) => {
    const given = source.pollInterval ?? load?.pollInterval ?? (anyGiven ? undefined : fallbackMs);
    return given === undefined ? [] : [Math.max(given, kindOf(source.source).traits.minPollIntervalMs ?? 0)];
  });
  return Math.min(...periods);
}
