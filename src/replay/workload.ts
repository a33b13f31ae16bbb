/**
 * The simulated workload of a replay: it runs what it was last scaled to; replicas added by a
 * scale-up become ready `readyDelayMs` later, and a scale-down takes replicas away at once,
 * those not yet ready first.
 */
import type { ObservedTarget } from '../scaler/read/target-port.js';

/** What a target's replay scales: a Kubernetes workload (below) or a pool (pool-replay.ts). */
export interface ReplayWorkload {
  /** What the target last set: replicas, or a pool's wanted count. */
  readonly scale: number;
  /** How long a replica added takes to be ready, as a wake's watch expects it. */
  readonly readyDelayMs: number;
  /** Ready replicas (running VMs) at `t`, not before the last settle. */
  readyAt(t: number): number;
  /** What the target's reconcile reads at `now`. */
  observed(now: number): Pick<ObservedTarget, 'specReplicas' | 'ready' | 'startable'>;
  /** When the workload next changes by itself (a replica ready, a pool pass due), if ever. */
  readonly nextEventAt: number | undefined;
  /** Moves the workload on to `t`. */
  settle(t: number): Promise<void> | void;
  scaleTo(replicas: number, now: number): Promise<void> | void;
}

export class Workload implements ReplayWorkload {
  private settled: number;
  /** Replicas on their way, oldest first: [readyAt, count] pairs. */
  private readonly pending: { at: number; count: number }[] = [];

  constructor(
    public scale: number,
    readonly readyDelayMs: number,
  ) {
    // The replicas it starts with are running already.
    this.settled = scale;
  }

  /** Ready replicas at `t` (not before the last settle). */
  readyAt(t: number): number {
    let ready = this.settled;
    for (const p of this.pending) if (p.at <= t) ready += p.count;
    return ready;
  }

  observed(now: number): Pick<ObservedTarget, 'specReplicas' | 'ready'> {
    return { specReplicas: this.scale, ready: this.readyAt(now) };
  }

  /** When the next replica on its way becomes ready, if any is. */
  get nextEventAt(): number | undefined {
    return this.pending[0]?.at;
  }

  /** Counts replicas ready by `t` as settled. */
  settle(t: number): void {
    while (this.pending.length > 0 && this.pending[0]!.at <= t) this.settled += this.pending.shift()!.count;
  }

  scaleTo(replicas: number, now: number): void {
    this.settle(now);
    if (replicas > this.scale) {
      if (this.readyDelayMs <= 0) this.settled += replicas - this.scale;
      else this.pending.push({ at: now + this.readyDelayMs, count: replicas - this.scale });
    } else {
      let remove = this.scale - replicas;
      while (remove > 0 && this.pending.length > 0) {
        const newest = this.pending.at(-1)!;
        const taken = Math.min(remove, newest.count);
        newest.count -= taken;
        remove -= taken;
        if (newest.count === 0) this.pending.pop();
      }
      this.settled -= remove;
    }
    this.scale = replicas;
  }
}
