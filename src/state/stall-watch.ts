/**
 * One warning for stalled storage. Each try ends at its timeout and each call after a few tries,
 * so a storage account that stops answering shows up as a run of slow or failed calls on one table
 * rather than as one long call; at the default log level nothing said so. A run starts at the first
 * call that failed unanswered or took at least `slowCallMs`, ends at the next prompt answer, and
 * once it has lasted `thresholdMs` it leaves one warning line (never one per try or per call).
 */
import { redact } from '../redact.js';

/** How long storage may stall before the default log says so (docs/architecture.md). */
export const STORAGE_STALL_WARN_MS = 25_000;

export interface StallWatchOptions {
  thresholdMs?: number;
  /** A call at least this long counts as stalled even if it was answered in the end. */
  slowCallMs: number;
  now?: () => number;
}

export interface StallWatch {
  /** Records one finished call on `resource` (a table or queue name) that began at `startedAt`. */
  record(resource: string, startedAt: number, outcome: { answered: boolean; error?: string }): void;
  onStalled(listener: (line: string) => void): void;
  readonly now: () => number;
}

export function stallWatch(options: StallWatchOptions): StallWatch {
  const thresholdMs = options.thresholdMs ?? STORAGE_STALL_WARN_MS;
  const now = options.now ?? Date.now;
  const runs = new Map<string, { since: number; calls: number; warned: boolean }>();
  const listeners: ((line: string) => void)[] = [];
  return {
    now,
    onStalled: (listener) => listeners.push(listener),
    record(resource, startedAt, outcome) {
      const at = now();
      const stalled = !outcome.answered || at - startedAt >= options.slowCallMs;
      if (!stalled) {
        runs.delete(resource);
        return;
      }
      const run = runs.get(resource) ?? { since: startedAt, calls: 0, warned: false };
      run.calls++;
      runs.set(resource, run);
      if (run.warned || at - run.since < thresholdMs) return;
      run.warned = true;
      const last = outcome.error === undefined ? 'the last one was answered' : `the last one failed: ${outcome.error}`;
      const line = redact(`storage: calls to ${resource} stalled for ${((at - run.since) / 1000).toFixed(1)} s over ${run.calls} calls; ${last}`);
      for (const l of listeners) l(line);
    },
  };
}
