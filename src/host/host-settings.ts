/**
 * The queue settings of host.json, read the way the Functions host reads them, so the local
 * host polls, retries and poisons messages exactly as Azure will.
 */
import { readFile } from 'node:fs/promises';

export interface QueueHostSettings {
  batchSize: number;
  newBatchThreshold: number;
  maxDequeueCount: number;
  /** Delay before a failed message is retried. */
  visibilityTimeoutMs: number;
  maxPollingIntervalMs: number;
  messageEncoding: 'base64' | 'none';
}

/** The Functions host's own defaults (QueuesOptions), used for anything host.json leaves out. */
export const HOST_DEFAULTS: QueueHostSettings = {
  batchSize: 16,
  newBatchThreshold: 8,
  maxDequeueCount: 5,
  visibilityTimeoutMs: 0,
  maxPollingIntervalMs: 60_000,
  messageEncoding: 'base64',
};

/** Parses a .NET TimeSpan "hh:mm:ss[.fff]" or "d.hh:mm:ss". */
export function parseTimeSpan(text: string): number {
  const m = /^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?$/.exec(text.trim());
  if (!m) throw new Error(`invalid TimeSpan ${JSON.stringify(text)}, want "hh:mm:ss"`);
  const [, d, h, mi, s, frac] = m;
  const fraction = frac ? Number(`0.${frac}`) : 0;
  return ((Number(d ?? 0) * 24 + Number(h)) * 3600 + Number(mi) * 60 + Number(s) + fraction) * 1000;
}

export function queueSettingsFrom(hostJson: unknown): QueueHostSettings {
  const q = ((hostJson as { extensions?: { queues?: Record<string, unknown> } })?.extensions?.queues ?? {}) as Record<string, unknown>;
  const num = (k: string, d: number) => (typeof q[k] === 'number' ? (q[k] as number) : d);
  const span = (k: string, d: number) => (typeof q[k] === 'string' ? parseTimeSpan(q[k] as string) : d);
  const batchSize = Math.min(32, Math.max(1, num('batchSize', HOST_DEFAULTS.batchSize)));
  return {
    batchSize,
    newBatchThreshold: num('newBatchThreshold', Math.floor(batchSize / 2)),
    maxDequeueCount: Math.max(1, num('maxDequeueCount', HOST_DEFAULTS.maxDequeueCount)),
    visibilityTimeoutMs: span('visibilityTimeout', HOST_DEFAULTS.visibilityTimeoutMs),
    maxPollingIntervalMs: Math.max(100, span('maxPollingInterval', HOST_DEFAULTS.maxPollingIntervalMs)),
    messageEncoding: q.messageEncoding === 'none' ? 'none' : 'base64',
  };
}

export async function readHostSettings(file: string): Promise<QueueHostSettings> {
  return queueSettingsFrom(JSON.parse(await readFile(file, 'utf8')));
}
