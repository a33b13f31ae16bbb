/**
 * A target's load sources as a list, whichever form its `load` takes: one source
 * (`load: { source, … }`, named `load`) or several (`load: { sources: [{ name, … }] }`). What
 * config checks, the pass and the deploy tools read of them.
 */
import type { LoadSourceConfig, TargetLoadConfig } from '../config/policy-schema.js';

export type SeveralSourcesConfig = Extract<TargetLoadConfig, { sources: unknown }>;

export interface ListedSource {
  name: string;
  source: LoadSourceConfig;
  /** Active when its value is strictly above this (KEDA activationTargetValue). */
  activationThreshold: number;
  /** Where it sits in the target's configuration, for error messages. */
  path: (string | number)[];
}

/** The name a one-source `load` goes by (in formulas, the sample row, the record's health). */
export const SINGLE_SOURCE_NAME = 'load';

export function isSeveral(load: TargetLoadConfig | undefined): load is SeveralSourcesConfig {
  return load !== undefined && 'sources' in load;
}

export function loadSources(load: TargetLoadConfig | undefined): ListedSource[] {
  if (load === undefined) return [];
  if (isSeveral(load)) return load.sources.map((source, j) => ({ name: source.name, source, activationThreshold: source.activationThreshold, path: ['load', 'sources', j] }));
  return [{ name: SINGLE_SOURCE_NAME, source: load, activationThreshold: load.activationThreshold ?? 0, path: ['load'] }];
}

/**
 * A target whose every source is a `queue` or a `push` one: its work waits in the queue (or with
 * the pusher) while it sleeps, so it may go to zero and wake without an activator. A target
 * without a `load` is not one: nothing says where its work waits.
 */
export function isQueueDriven(load: TargetLoadConfig | undefined): boolean {
  const sources = loadSources(load);
  return sources.length > 0 && sources.every((s) => s.source.source !== 'http');
}

/** How often the target's sources are polled: the shortest period any gives (absent: none is polled). */
export function pollIntervalOf(load: TargetLoadConfig | undefined, fallbackMs: number): number | undefined {
  const polled = loadSources(load).filter((s) => s.source.source !== 'push');
  if (polled.length === 0) return undefined;
  const given = [isSeveral(load) ? load.pollInterval : undefined, ...polled.map((s) => ('pollInterval' in s.source ? s.source.pollInterval : undefined))].filter((ms): ms is number => ms !== undefined);
  return given.length === 0 ? fallbackMs : Math.min(...given);
}
