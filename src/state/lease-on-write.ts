/**
 * An object's lease taken at its pass's first write rather than at its start. A pass reads, plans
 * and, when it finds nothing to write (a warm pool, a steady target), ends without a single lease
 * request; a pass that writes calls `check()` before its first write, which takes the lease (with
 * the timer occurrence's claim, when it has one) and from then on renews it as a held lease does.
 *
 * Reads made before the lease is taken can be older than a holder that finished just before it:
 * every write a pass makes is conditional on what it read (ETags, the target row's revision, the
 * scale set's ETag), so a pass that planned on such reads has its first write refused and fails,
 * to run again; it never overwrites the newer holder's work.
 */
import type { Clock } from '../clock.js';
import { scopedAbort } from '../deadline.js';
import { LeaseGuard, type Leases, type OccurrenceClaim } from './leases.js';

/** The lease as a pass's writes check it. */
export interface PassLease {
  /** Call before every write: takes the lease the first time, renews it once less than half is left. */
  check(): Promise<void>;
  /** Time left before the lease would run out (a whole TTL while not yet taken). */
  remainingMs(): number;
}

/** The first write found the lease held by another holder, or the object claimed for this occurrence. */
export class LeaseRefusedError extends Error {
  override name = 'LeaseRefusedError';
  constructor(
    readonly key: string,
    readonly heldBy: string,
    /** On this host's clock. */
    readonly until: number,
    readonly claimedFor?: number,
  ) {
    super(claimedFor === undefined ? `lease on ${key} is held by ${heldBy}` : `${key} was reconciled by ${heldBy} for this occurrence`);
  }
}

export function isLeaseRefused(err: unknown): err is LeaseRefusedError {
  return err instanceof LeaseRefusedError;
}

export class LeaseOnWrite implements PassLease {
  private guard: LeaseGuard | undefined;
  private taking: Promise<void> | undefined;
  private readonly scope: ReturnType<typeof scopedAbort>;

  constructor(
    private readonly leases: Leases,
    private readonly clock: Clock,
    private readonly key: string,
    private readonly holder: string,
    private readonly ttlMs: number,
    private readonly options: { signal?: AbortSignal; claim?: OccurrenceClaim; heartbeatMs?: number } = {},
  ) {
    this.scope = scopedAbort(options.signal);
  }

  /** The pass's signal: aborted by the caller's (a deadline, shutdown), or once a taken lease is lost. */
  get signal(): AbortSignal {
    return this.scope.signal;
  }

  /** Whether the pass took the lease (it wrote, or was about to). */
  get taken(): boolean {
    return this.guard !== undefined;
  }

  check(): Promise<void> {
    if (!this.guard) return (this.taking ??= this.take());
    // A lease is only taken over once it expires: with more than half left, nobody else can hold it.
    return this.guard.remainingMs() > this.ttlMs / 2 ? Promise.resolve() : this.guard.check();
  }

  remainingMs(): number {
    return this.guard ? this.guard.remainingMs() : this.signal.aborted ? 0 : this.ttlMs;
  }

  /** Gives the lease back if it was taken, and stops following the caller's signal. */
  async release(): Promise<void> {
    // A take still under way (its write failed and the pass gave up) settles first.
    await this.taking?.catch(() => undefined);
    if (this.guard) await this.guard.release().catch(() => undefined);
    this.scope.dispose();
  }

  private async take(): Promise<void> {
    const got = await this.leases.acquire(this.key, this.holder, this.ttlMs, this.options.claim ? { claim: this.options.claim } : {});
    if (!got.acquired) throw new LeaseRefusedError(this.key, got.heldBy, got.until, got.claimedFor);
    const guard = new LeaseGuard(this.leases, got.lease, this.ttlMs, this.clock, this.scope.signal);
    // A lost lease stops the whole pass: every call it makes carries the pass's signal.
    guard.signal.addEventListener('abort', () => this.scope.abort(guard.signal.reason as Error), { once: true });
    this.guard = guard;
    const heartbeatMs = this.options.heartbeatMs;
    if (heartbeatMs !== 0) guard.startHeartbeat(heartbeatMs);
  }
}
