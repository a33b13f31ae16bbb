/**
 * Per-object leases: one invocation reconciles an object at a time, even when the Functions
 * host scales out. A lease is a row with a holder and a time to live, taken and renewed under
 * its ETag. A holder that lets its lease expire has lost it, like the provisioner seed's BMDB
 * session: it must stop, and its later writes are refused because the ETag moved on.
 *
 * No host's clock is compared with another's. A contender judges a row on the storage service's
 * clock (its age = the response's Date minus the row's Timestamp, against the row's TTL); the
 * holder judges its own lease by a duration on its own clock, counted from before it sent the
 * write. Both err on the safe side, so a host whose clock is off by any amount can neither take
 * a live lease nor block an object past the TTL (docs/architecture.md, "Time across hosts").
 */
import type { Clock } from '../clock.js';
import { reasonOf, scopedAbort } from '../deadline.js';
import type { EntityTable, Row } from './entity-table.js';
import { serviceResponses, type ServiceClock, type TimedRow } from './service-clock.js';
import { carriedClaim, claimProps, claimTaken, type CarriedClaim, type ClaimProps } from '../reconcile/occurrence-claims.js';

const PARTITION = 'lease';

type LeaseProps = { holder: string; ttlMs: number } & Partial<ClaimProps>;

export interface Lease {
  key: string;
  holder: string;
  /** When this holder must consider the lease gone, on its own clock (its send time + TTL). */
  expiresAt: number;
  /** The lease row's ETag: every renewal and release is conditional on it. */
  etag: string;
  /** The timer occurrence the row carries (occurrence-claims.ts): written again with every renewal, kept by the release. */
  claim?: CarriedClaim;
}

/**
 * `until` is on the caller's own clock: now plus what is left of the holder's TTL on the
 * service's. `claimedFor`: refused because `heldBy` took the object for that occurrence already.
 */
export type AcquireResult = { acquired: true; lease: Lease } | { acquired: false; heldBy: string; until: number; claimedFor?: number };

/** A timer pass's claim: the occurrence (on the claimant's clock) and who claims it (the host). */
export type OccurrenceClaim = { occurrence: number; by: string };

/** How often a timer pass reads the row again after another writer took it between its read and its write. */
const CLAIM_ATTEMPTS = 5;

export class LeaseExpiredError extends Error {
  override name = 'LeaseExpiredError';
  constructor(readonly key: string, detail: string) {
    super(`lease on ${key} lost: ${detail}`);
  }
}

export function isLeaseExpired(err: unknown): err is LeaseExpiredError {
  return err instanceof LeaseExpiredError;
}

/** How much of a row's TTL is left, on the service's clock (≤ 0: expired). */
export function leaseRemainingMs(service: ServiceClock, read: TimedRow<LeaseProps>): number {
  // A row from before TTLs were stored carries none: it had the standard one.
  const ttlMs = Number(read.row.props.ttlMs ?? LEASE_TTL_MS);
  // Released (a row kept for its occurrence claim): free at once, however the Date header's
  // whole seconds make its age read (up to 1 s short, so possibly below 0).
  if (ttlMs <= 0) return 0;
  const { writtenAt, now } = service.times(read);
  return ttlMs - (now - writtenAt);
}

export class Leases {
  constructor(
    readonly table: EntityTable,
    readonly clock: Clock,
    /** Whose clock judges a row's age: the service's (default), or a simulated one in tests. */
    readonly service: ServiceClock = serviceResponses,
  ) {}

  /**
   * Takes the lease on `key` unless another holder has it. With `occurrence` (a timer pass), the
   * claim for that occurrence rides on the same conditional write: refused when the row carries
   * a claim for it or a later one (`claimedFor`). A lease taken without one keeps the claim the
   * row carries.
   */
  async acquire(key: string, holder: string, ttlMs: number, options: { claim?: OccurrenceClaim } = {}): Promise<AcquireResult> {
    if (options.claim) return this.acquireClaiming(key, holder, ttlMs, options.claim);
    const sentAt = this.clock.now();
    // A row-less object (never claimed, or released without a claim) takes one round trip.
    let row: Row<LeaseProps> | undefined = await this.table.create(PARTITION, key, this.propsFor(holder, ttlMs, undefined));
    if (row) return { acquired: true, lease: { key, holder, expiresAt: sentAt + ttlMs, etag: row.etag } };
    const current = await this.table.getTimed<LeaseProps>(PARTITION, key);
    let claim: CarriedClaim | undefined;
    if (!current) {
      row = await this.table.create(PARTITION, key, this.propsFor(holder, ttlMs, undefined));
    } else {
      const left = leaseRemainingMs(this.service, current);
      if (left > 0) return { acquired: false, heldBy: current.row.props.holder, until: this.clock.now() + left };
      claim = carriedClaim(this.service, current, this.clock.now());
      row = await this.table.replaceIf(current.row, this.propsFor(holder, ttlMs, claim));
    }
    if (!row) return this.lostTo(key);
    return { acquired: true, lease: { key, holder, expiresAt: sentAt + ttlMs, etag: row.etag, ...(claim ? { claim } : {}) } };
  }

  /** A timer pass's acquire: the row read first (it usually exists: a released lease keeps its claim), then one conditional write. */
  private async acquireClaiming(key: string, holder: string, ttlMs: number, { occurrence, by }: OccurrenceClaim): Promise<AcquireResult> {
    const claim: CarriedClaim = { occurrence, by, at: occurrence };
    for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
      const sentAt = this.clock.now();
      const current = await this.table.getTimed<LeaseProps>(PARTITION, key);
      if (current && claimTaken(this.service, current, occurrence, sentAt)) {
        return { acquired: false, heldBy: current.row.props.by ?? current.row.props.holder, until: sentAt, claimedFor: current.row.props.occurrence! };
      }
      const left = current ? leaseRemainingMs(this.service, current) : 0;
      if (current && left > 0) return { acquired: false, heldBy: current.row.props.holder, until: this.clock.now() + left };
      const props = this.propsFor(holder, ttlMs, claim);
      const row = current ? await this.table.replaceIf(current.row, props) : await this.table.create(PARTITION, key, props);
      if (row) return { acquired: true, lease: { key, holder, expiresAt: sentAt + ttlMs, etag: row.etag, claim } };
    }
    return this.lostTo(key);
  }

  /** Someone else took the lease between our read and our write. */
  private async lostTo(key: string): Promise<AcquireResult> {
    const winner = await this.table.getTimed<LeaseProps>(PARTITION, key);
    const left = winner ? Math.max(0, leaseRemainingMs(this.service, winner)) : 0;
    return { acquired: false, heldBy: winner?.row.props.holder ?? 'unknown', until: this.clock.now() + left };
  }

  /** Extends a held lease; throws LeaseExpiredError when it already expired or was taken over. */
  async renew(lease: Lease, ttlMs: number): Promise<Lease> {
    const sentAt = this.clock.now();
    if (sentAt >= lease.expiresAt) throw new LeaseExpiredError(lease.key, `expired ${sentAt - lease.expiresAt} ms ago`);
    const props = this.propsFor(lease.holder, ttlMs, lease.claim);
    const row = await this.table.replaceIf<LeaseProps>({ partitionKey: PARTITION, rowKey: lease.key, etag: lease.etag, props }, props);
    if (!row) throw new LeaseExpiredError(lease.key, 'another holder has taken it over');
    return { ...lease, expiresAt: sentAt + ttlMs, etag: row.etag };
  }

  /**
   * Gives the lease up early; a lease already taken over is left to its new holder. A row that
   * carries a claim stays, released (a TTL of 0), so the claim still turns later passes for its
   * occurrence away.
   */
  async release(lease: Lease): Promise<void> {
    if (!lease.claim) {
      await this.table.delete(PARTITION, lease.key, lease.etag);
      return;
    }
    await this.table.replaceIf<LeaseProps>({ partitionKey: PARTITION, rowKey: lease.key, etag: lease.etag, props: {} as LeaseProps }, this.propsFor(lease.holder, 0, lease.claim));
  }

  /** Who holds `key` and until when (on this host's clock), judged on the service's clock. */
  async holderOf(key: string): Promise<{ holder: string; until: number } | undefined> {
    const read = await this.table.getTimed<LeaseProps>(PARTITION, key);
    const left = read ? leaseRemainingMs(this.service, read) : 0;
    if (!read || left <= 0) return undefined;
    return { holder: read.row.props.holder, until: this.clock.now() + left };
  }

  private propsFor(holder: string, ttlMs: number, claim: CarriedClaim | undefined): LeaseProps {
    return { holder, ttlMs, ...claimProps(claim, this.clock.now()), ...this.service.stamp() } as LeaseProps;
  }
}

/** Short, so a crashed holder blocks its object for at most this long (plus a heartbeat). */
export const LEASE_TTL_MS = 15_000;
/** How often a working holder renews its lease: three chances before it would run out. */
export const HEARTBEAT_MS = 5_000;

/**
 * A lease held for one piece of work. Call `check()` before each write: it refuses once the
 * lease has expired, been taken over or the work was aborted, and otherwise renews it under
 * its ETag, so the check itself is a conditional write that fences out a holder whose lease
 * was taken over. While the work runs, a heartbeat renews the lease every HEARTBEAT_MS; when
 * a renewal finds the lease lost, `signal` aborts, and with it every call the work makes.
 */
export class LeaseGuard {
  private lease: Lease;
  /** Renewals one after another: two at once would race on the ETag and one would "lose". */
  private renewals: Promise<unknown> = Promise.resolve();
  private readonly scope: ReturnType<typeof scopedAbort>;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly leases: Leases,
    lease: Lease,
    private readonly ttlMs: number,
    private readonly clock: Clock,
    parent?: AbortSignal,
  ) {
    this.lease = lease;
    this.scope = scopedAbort(parent);
  }

  get current(): Lease {
    return this.lease;
  }

  /** Aborted when the lease is lost or the caller's signal aborts. */
  get signal(): AbortSignal {
    return this.scope.signal;
  }

  check(): Promise<void> {
    const run = this.renewals.then(async () => {
      if (this.signal.aborted) {
        const reason = reasonOf(this.signal);
        throw isLeaseExpired(reason) ? reason : new LeaseExpiredError(this.lease.key, `the work was stopped (${reason.message})`);
      }
      try {
        this.lease = await this.leases.renew(this.lease, this.ttlMs);
      } catch (err) {
        if (isLeaseExpired(err)) this.scope.abort(err);
        throw err;
      }
    });
    this.renewals = run.catch(() => undefined);
    return run;
  }

  /**
   * Renews every `intervalMs` of wall time until `stop()`. A renewal that fails for another
   * reason (storage briefly away) is tried again on the next beat while the lease still runs.
   */
  startHeartbeat(intervalMs = HEARTBEAT_MS): void {
    const beat = () => {
      this.heartbeat = setTimeout(() => {
        this.check().then(beat, (err: unknown) => {
          if (isLeaseExpired(err) || this.signal.aborted) return;
          if (this.remainingMs() <= 0) this.scope.abort(new LeaseExpiredError(this.lease.key, `could not be renewed in time: ${(err as Error).message}`));
          else beat();
        });
      }, intervalMs);
      this.heartbeat.unref();
    };
    beat();
  }

  /** Ends the heartbeat and stops following the caller's signal. */
  stop(): void {
    clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    this.scope.dispose();
  }

  /** Remaining time before the lease expires, for bounding waits inside the work. */
  remainingMs(): number {
    // Once aborted, no time is left: a caller that skips renewing while time remains checks now.
    if (this.signal.aborted) return 0;
    return Math.max(0, this.lease.expiresAt - this.clock.now());
  }

  async release(): Promise<void> {
    this.stop();
    await this.renewals;
    await this.leases.release(this.lease);
  }
}

export type LeasedResult<T> = { ran: true; value: T } | { ran: false; heldBy: string; until: number; claimedFor?: number };

export interface WithLeaseOptions {
  /** The caller's signal (pass deadline, shutdown): aborting it aborts the work's `guard.signal`. */
  signal?: AbortSignal;
  /** Heartbeat interval; 0 turns the heartbeat off. Default HEARTBEAT_MS. */
  heartbeatMs?: number;
  /** The timer occurrence to claim with the lease (occurrence-claims.ts). */
  claim?: OccurrenceClaim;
}

/** Runs `work` only if the lease on `key` can be taken, renewing it meanwhile; always releases it afterwards. */
export async function withLease<T>(
  leases: Leases,
  clock: Clock,
  key: string,
  holder: string,
  ttlMs: number,
  work: (guard: LeaseGuard) => Promise<T>,
  options: WithLeaseOptions = {},
): Promise<LeasedResult<T>> {
  const got = await leases.acquire(key, holder, ttlMs, options.claim ? { claim: options.claim } : {});
  if (!got.acquired) return { ran: false, heldBy: got.heldBy, until: got.until, ...(got.claimedFor !== undefined ? { claimedFor: got.claimedFor } : {}) };
  const guard = new LeaseGuard(leases, got.lease, ttlMs, clock, options.signal);
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  if (heartbeatMs > 0) guard.startHeartbeat(heartbeatMs);
  try {
    return { ran: true, value: await work(guard) };
  } finally {
    await guard.release().catch(() => undefined);
  }
}
