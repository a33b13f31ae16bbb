/**
 * Storage that stalls is said while it lasts. Each try ends at its timeout and each call after a
 * few tries, so a storage account that stops answering shows up as calls left unanswered on one
 * table or queue: calls still waiting, and calls that ended unanswered (or slow). A run starts at
 * the first such call and ends at the next prompt answer. Once it has lasted `thresholdMs` it
 * leaves one warning naming the table or queue, even while every call still hangs (a timer looks
 * at the calls in flight, not only at calls that ended); while it lasts, one reminder every
 * `remindEveryMs`; when storage answers promptly again, one line with the stall's length. Never
 * one line per try or per call.
 *
 * The watch is plain state on an injected clock and timer; the storage adapter (storage.ts, and
 * src/queue/watched-client.ts) tells it when each call begins and ends.
 */
import { redact } from '../redact.js';

/** How long storage may stall before the default log says so (docs/architecture.md). */
export const STORAGE_STALL_WARN_MS = 10_000;
/** How often a stall that goes on is said again. */
export const STORAGE_STALL_REMIND_MS = 60_000;

export type StallEvent = 'stalled' | 'still stalled' | 'answers again';

export interface StallTimers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface StallWatchOptions {
  thresholdMs?: number;
  remindEveryMs?: number;
  /** A call at least this long counts as stalled even if it was answered in the end. */
  slowCallMs: number;
  now?: () => number;
  /** When the watch looks again at calls still waiting; by default an unref'd setTimeout. */
  timers?: StallTimers;
}

export type CallOutcome = { answered: boolean; error?: string };

export interface StallWatch {
  /** A call on `resource` (`table droverleases`, `queue drover-reconcile`) begins; call the answer when it ends. */
  begin(resource: string): (outcome: CallOutcome) => void;
  /** `line` is redacted; `event` says whether it is a warning (stalled, still stalled) or the end of one. */
  onStalled(listener: (line: string, event: StallEvent) => void): void;
  readonly now: () => number;
}

interface Resource {
  /** The starts of the calls in flight, by call. */
  inFlight: Map<number, number>;
  /** The open run of stalled calls that ended: since when, how many, and the last one's error. */
  run?: { since: number; calls: number; lastError?: string };
  /** When the current stall was last said; undefined while it has not been. */
  saidAt?: number;
  saidSince?: number;
}

const realTimers: StallTimers = {
  set: (callback, ms) => setTimeout(callback, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export function stallWatch(options: StallWatchOptions): StallWatch {
  return new Watch(options);
}

class Watch implements StallWatch {
  readonly now: () => number;
  private readonly thresholdMs: number;
  private readonly remindEveryMs: number;
  private readonly timers: StallTimers;
  private readonly resources = new Map<string, Resource>();
  private readonly listeners: ((line: string, event: StallEvent) => void)[] = [];
  private nextCall = 0;
  private timer: { handle: unknown; at: number } | undefined;

  constructor(private readonly options: StallWatchOptions) {
    this.thresholdMs = options.thresholdMs ?? STORAGE_STALL_WARN_MS;
    this.remindEveryMs = options.remindEveryMs ?? STORAGE_STALL_REMIND_MS;
    this.now = options.now ?? Date.now;
    this.timers = options.timers ?? realTimers;
  }

  onStalled(listener: (line: string, event: StallEvent) => void): void {
    this.listeners.push(listener);
  }

  begin(name: string): (outcome: CallOutcome) => void {
    const r = this.resources.get(name) ?? { inFlight: new Map<number, number>() };
    this.resources.set(name, r);
    const call = this.nextCall++;
    const startedAt = this.now();
    r.inFlight.set(call, startedAt);
    this.schedule();
    let ended = false;
    return (outcome) => {
      if (ended) return;
      ended = true;
      this.end(name, r, call, startedAt, outcome);
      this.schedule();
    };
  }

  private say(line: string, event: StallEvent): void {
    const redacted = redact(line);
    for (const l of this.listeners) l(redacted, event);
  }

  /**
   * Since when `r` has been stalled at `at`, or undefined when it is not: its open run, or a call
   * waiting at least as long as a slow call takes (an answer may still come before that).
   */
  private stalledSince(r: Resource, at: number): number | undefined {
    const oldest = Math.min(...r.inFlight.values());
    const waiting = at - oldest >= this.options.slowCallMs ? oldest : Infinity;
    const since = Math.min(r.run?.since ?? Infinity, waiting);
    return Number.isFinite(since) ? since : undefined;
  }

  /** Says what is due for `name` at `at`: the first warning, or a reminder. */
  private look(name: string, r: Resource, at: number): void {
    const since = this.stalledSince(r, at);
    if (since === undefined || at - since < this.thresholdMs) return;
    if (r.saidAt !== undefined && at - r.saidAt < this.remindEveryMs) return;
    const event: StallEvent = r.saidAt === undefined ? 'stalled' : 'still stalled';
    r.saidAt = at;
    r.saidSince = since;
    this.say(`storage: calls to ${name} ${event === 'stalled' ? 'stalled for' : 'still stalled after'} ${seconds(at - since)}: ${detail(r)}`, event);
  }

  /** When the next warning or reminder may be due for a resource with calls in flight (none are looked for without). */
  private dueAt(r: Resource): number | undefined {
    if (r.inFlight.size === 0) return undefined;
    if (r.saidAt !== undefined) return r.saidAt + this.remindEveryMs;
    const oldest = Math.min(...r.inFlight.values());
    return Math.min(r.run?.since ?? Infinity, oldest + Math.max(0, this.options.slowCallMs - this.thresholdMs)) + this.thresholdMs;
  }

  /** Sets the timer for the earliest due look, never sooner than `notBefore` (a look that found nothing to say does not spin). */
  private schedule(notBefore = -Infinity): void {
    const due = Math.max(notBefore, Math.min(...[...this.resources.values()].map((r) => this.dueAt(r) ?? Infinity)));
    if (this.timer && this.timer.at <= due) return;
    if (this.timer) this.timers.clear(this.timer.handle);
    this.timer = undefined;
    if (!Number.isFinite(due)) return;
    this.timer = { at: due, handle: this.timers.set(() => this.tick(), Math.max(0, due - this.now())) };
  }

  private tick(): void {
    this.timer = undefined;
    const at = this.now();
    for (const [name, r] of this.resources) if (r.inFlight.size > 0) this.look(name, r, at);
    this.schedule(at + 1_000);
  }

  private end(name: string, r: Resource, call: number, startedAt: number, outcome: CallOutcome): void {
    r.inFlight.delete(call);
    const at = this.now();
    if (!outcome.answered || at - startedAt >= this.options.slowCallMs) {
      r.run ??= { since: startedAt, calls: 0 };
      r.run.calls++;
      r.run.lastError = outcome.error;
      this.look(name, r, at);
      return;
    }
    if (r.saidSince !== undefined) this.say(`storage: ${name} answers again after a stall of ${seconds(at - r.saidSince)}`, 'answers again');
    r.run = undefined;
    r.saidAt = undefined;
    r.saidSince = undefined;
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function detail(r: Resource): string {
  const parts: string[] = [];
  if (r.inFlight.size > 0) parts.push(`${r.inFlight.size} call${r.inFlight.size === 1 ? '' : 's'} waiting for an answer`);
  if (r.run) parts.push(`${r.run.calls} call${r.run.calls === 1 ? '' : 's'} ended unanswered or slow`);
  const last = r.run === undefined ? '' : r.run.lastError === undefined ? '; the last one was answered, slowly' : `; the last one failed: ${r.run.lastError}`;
  return `${parts.join(', ')}${last}`;
}
