/**
 * The scale sets this process last read from ARM, each with when: a pool pass inside the read's
 * period reuses it instead of a GET, and a warm pass whose GET finds the scale set as it was
 * writes nothing to say so. Per process, like the decision log's memory: another instance reads
 * ARM once for itself. A pass that writes the scale set forgets its read.
 */
import type { ScaleSetInfo } from '../azure/scale-set-api.js';

/** Scale sets remembered at most (past it, the oldest read is forgotten). */
const MAX_REMEMBERED = 10_000;

export interface ScaleSetRead {
  scaleSet: ScaleSetInfo;
  readAt: number;
}

export class ScaleSetReads {
  private readonly reads = new Map<string, ScaleSetRead>();

  /** The read of `key` made within `periodMs` before `now`, if any. */
  recent(key: string, now: number, periodMs: number): ScaleSetRead | undefined {
    const read = this.reads.get(key);
    return read && read.readAt + periodMs > now ? read : undefined;
  }

  remember(key: string, scaleSet: ScaleSetInfo, readAt: number): void {
    this.reads.delete(key);
    if (this.reads.size >= MAX_REMEMBERED) this.reads.delete(this.reads.keys().next().value!);
    this.reads.set(key, { scaleSet, readAt });
  }

  forget(key: string): void {
    this.reads.delete(key);
  }
}
