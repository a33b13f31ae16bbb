/**
 * The fleet an emulated incumbent sizes: units added become ready one start-up delay later, and
 * a removal takes the newest first (those not yet ready before ready ones). It records its
 * steps (ready and billed units over time) for scoring.
 */
import type { FleetStep } from './metrics.js';

export class Fleet {
  private ready: number;
  /** Units on their way, oldest first. */
  private readonly pending: { at: number; count: number }[] = [];
  readonly steps: FleetStep[] = [];

  constructor(initial: number, start: number) {
    this.ready = initial;
    this.record(start);
  }

  /** Every unit, ready or not (what the incumbent counts as its current size). */
  get size(): number {
    return this.ready + this.pending.reduce((n, p) => n + p.count, 0);
  }

  /** Ready units at `t`, after settling to it. */
  readyAt(t: number): number {
    this.settle(t);
    return this.ready;
  }

  /** Counts units ready by `t`, recording a step when each batch becomes ready. */
  settle(t: number): void {
    while (this.pending.length > 0 && this.pending[0]!.at <= t) {
      const batch = this.pending.shift()!;
      this.ready += batch.count;
      this.record(batch.at);
    }
  }

  add(count: number, now: number, delayMs: number): void {
    this.settle(now);
    if (delayMs <= 0) this.ready += count;
    else this.pending.push({ at: now + delayMs, count });
    this.record(now);
  }

  remove(count: number, now: number): void {
    this.settle(now);
    let left = count;
    while (left > 0 && this.pending.length > 0) {
      const newest = this.pending.at(-1)!;
      const taken = Math.min(left, newest.count);
      newest.count -= taken;
      left -= taken;
      if (newest.count === 0) this.pending.pop();
    }
    this.ready -= left;
    this.record(now);
  }

  private record(at: number): void {
    const step = { at, supply: this.ready, billed: this.size };
    const last = this.steps.at(-1);
    if (last && last.at === at) this.steps[this.steps.length - 1] = step;
    else this.steps.push(step);
  }
}
