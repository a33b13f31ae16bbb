/**
 * The pool behind a Pool target in a replay (`scaleTargetRef: { kind: Pool }`): the target writes
 * the wanted count, and the pool carries it out with its own plan and executor (`planPool`,
 * `executePlan`) over the in-memory scale set of pool-world.ts, on the replay's clock.
 *
 * A pool pass runs when production would run one: at every timer occurrence, when the target
 * wrote the wanted count (it enqueues the pool), and at the pool's own rechecks 15 s after a
 * pass that left work unfinished. With a warm buffer (`warm.max`), the scale-in parks VMs
 * (deallocated at once) and the scale-out starts them, running `startDelayMs` later. As in production, a pass that finds nothing changed since a
 * plan that changed nothing (a warm pass) plans nothing and takes no token; any other takes a
 * `reconcileRate` token (a recheck excepted; the pass a raise of the wanted count enqueued takes
 * it from the raise bucket, wanted.ts), waiting for one up to the pass's bound, and the
 * raise and the scale-in draw `creationRate` and `deletionRate` tokens. A wait for creation
 * tokens delays the new VMs, not the pass. What the target reads is what the cache holds: the
 * healthy running VMs the last listing saw.
 */
import type { DroverConfig, PoolConfig, TargetConfig } from '../config/schema.js';
import type { Rate } from '../config/rate.js';
import { executePlan, type PoolOutcome, type PoolPassDeps } from '../pool/execute.js';
import { changesNothing, planPool } from '../pool/plan.js';
import { raises } from '../pool/wanted.js';
import { MAX_LIMITER_WAIT_MS, RECHECK_MS, poolSettings } from '../pool/reconcile-pool.js';
import { cappedWanted, observePool } from '../scaler/read/pool-port.js';
import { drawTokens, refill, reserveToken, type BucketProps } from '../state/limiter.js';
import { PoolWorld } from './pool-world.js';
import type { ReplaySchedule } from './schedule.js';
import type { ReplayWorkload } from './workload.js';

export interface PoolReplayOptions {
  /** From a capacity raise to the VM running. */
  creationDelayMs: number;
  /** From the start of a parked VM to it running. */
  startDelayMs: number;
  schedule: ReplaySchedule;
  /** The Pool target being replayed: the plan is told, as in production (poolSettings). */
  sizedBy: string;
}

export interface PoolReplaySummary {
  /** VMs allocated (creating, starting or running: what is paid for) integrated over the trace. */
  vmMinutes: number;
  /** Parked VMs (deallocated: their disks are paid for) integrated over the trace. */
  parkedMinutes: number;
  peakVms: number;
  vmsCreated: number;
  /** VMs the warm buffer parked, and parked VMs started. */
  vmsParked: number;
  vmsStarted: number;
  /** VMs a scale-in deleted by instance id, and the calls it took. */
  vmsScaledIn: number;
  deleteCalls: number;
  /** Start and deallocate calls (each a batch of VMs) the warm buffer made. */
  powerCalls: number;
  capacityWrites: number;
  /** Passes that planned (warm passes left out), and those the reconcile rate turned away. */
  passes: number;
  rateLimitedPasses: number;
}

export interface PoolTimelineRow {
  at: number;
  /** The target's wanted count; undefined before it wrote one. */
  wanted: number | undefined;
  capacity: number;
  /** VMs provisioning or starting. */
  creating: number;
  /** Running VMs (healthy: the replay fails none). */
  ready: number;
  /** Parked in the warm buffer (deallocated). */
  parked: number;
}

export interface PoolReplayResult {
  name: string;
  summary: PoolReplaySummary;
  timeline: PoolTimelineRow[];
  /** When each count-changing call was made: a capacity raise, a delete call, a start or deallocate call. */
  calls: number[];
}

/** The pool a Pool target sizes (config load refuses a Pool target naming no pool). */
export function sizedPool(config: DroverConfig, target: TargetConfig): PoolConfig | undefined {
  const ref = target.scaleTargetRef;
  return 'kind' in ref && ref.kind === 'Pool' ? config.pools.find((p) => p.name === ref.name) : undefined;
}

/** A `rate` bucket as the shared limiter keeps it (state/limiter.ts), in memory. */
class Bucket {
  private state: BucketProps | undefined;
  constructor(private readonly rate: Rate) {}

  /** Like SharedLimiter.reserve: the wait for one token, or undefined when it is further off than `maxWaitMs`. */
  reserve(now: number, maxWaitMs: number): number | undefined {
    if (this.rate.intervalMs === 0) return 0;
    const { reservation, next } = reserveToken(refill(this.state, this.rate, now), this.rate, maxWaitMs);
    if (next) this.state = next;
    return reservation.ok ? reservation.waitMs : undefined;
  }

  /** Like SharedLimiter.draw: how many of `wanted` tokens, and how long until the last is due. */
  draw(wanted: number, now: number): { granted: number; waitMs: number } {
    if (wanted <= 0 || this.rate.intervalMs === 0) return { granted: Math.max(0, wanted), waitMs: 0 };
    const drawn = drawTokens(refill(this.state, this.rate, now), this.rate, wanted, MAX_LIMITER_WAIT_MS);
    if (drawn.next) this.state = drawn.next;
    return drawn;
  }
}

/** A pass due: a recheck takes no token; one its target's raise enqueued takes it from the raise bucket (wanted.ts). */
type Due = { at: number; recheck: boolean; tokenTaken: boolean; raise?: boolean };

export class PoolWorkload implements ReplayWorkload {
  private readonly world: PoolWorld;
  private readonly due: Due[] = [];
  private nextTimer: number;
  private settledTo: number;
  /** The last plan changed nothing, and nothing was written since: the next pass is warm. */
  private warm = false;
  private heldUntil: number | undefined;
  private readonly limits: { reconcile: Bucket; raise: Bucket; creation: Bucket; deletion: Bucket };
  private readonly summary: PoolReplaySummary = { vmMinutes: 0, parkedMinutes: 0, peakVms: 0, vmsCreated: 0, vmsParked: 0, vmsStarted: 0, vmsScaledIn: 0, deleteCalls: 0, powerCalls: 0, capacityWrites: 0, passes: 0, rateLimitedPasses: 0 };
  private readonly timeline: PoolTimelineRow[] = [];
  private readonly calls: number[] = [];
  private vmMs = 0;
  private parkedMs = 0;
  private integratedTo: number;

  constructor(
    private readonly pool: PoolConfig,
    private readonly options: PoolReplayOptions,
    initial: number,
    start: number,
  ) {
    this.world = new PoolWorld(pool, { creationMs: options.creationDelayMs, startMs: options.startDelayMs });
    this.world.seed(initial, start);
    this.limits = { reconcile: new Bucket(pool.reconcileRate), raise: new Bucket(pool.reconcileRate), creation: new Bucket(pool.creationRate), deletion: new Bucket(pool.deletionRate) };
    this.nextTimer = options.schedule.next(start - 1);
    this.settledTo = start;
    this.integratedTo = start;
    this.summary.peakVms = initial;
    this.record(start);
  }

  get readyDelayMs(): number {
    return this.options.creationDelayMs;
  }

  get scale(): number {
    return this.observed(this.settledTo).specReplicas;
  }

  readyAt(t: number): number {
    return this.world.countAt(t).running;
  }

  observed(_now: number): ReturnType<typeof observePool> {
    return observePool(this.world.cache, this.world.wanted, this.pool.maxCount);
  }

  get nextEventAt(): number | undefined {
    const candidates = [this.due[0]?.at ?? Infinity, this.nextTimer, this.world.nextRunningAfter(this.settledTo) ?? Infinity];
    return Math.min(...candidates);
  }

  async settle(t: number): Promise<void> {
    for (;;) {
      const pending = this.due[0];
      const next = Math.min(pending?.at ?? Infinity, this.nextTimer);
      if (next > t) break;
      this.moveTo(next);
      if (pending && pending.at === next) {
        this.due.shift();
        await this.pass(next, pending);
      } else {
        this.nextTimer = this.options.schedule.next(next);
        await this.pass(next, { at: next, recheck: false, tokenTaken: false });
      }
    }
    this.moveTo(t);
  }

  /** The target's write: the wanted count (capped by maxCount), then the pool enqueued. */
  scaleTo(replicas: number, now: number): void {
    this.moveTo(now);
    const wanted = cappedWanted(replicas, this.pool.maxCount);
    const raise = raises(wanted, this.world.wanted);
    if (this.world.setWanted(wanted, now)) this.warm = false;
    this.enqueue({ at: now, recheck: false, tokenTaken: false, raise });
    this.record(now);
  }

  result(end: number): PoolReplayResult {
    this.moveTo(end);
    return { name: this.pool.name, summary: { ...this.summary, vmMinutes: this.vmMs / 60_000, parkedMinutes: this.parkedMs / 60_000 }, timeline: this.timeline, calls: this.calls };
  }

  private async pass(now: number, due: Due): Promise<void> {
    const fresh = this.world.isFresh(now);
    // As in production (rememberWarm): a VM held by scaleIn.minAge coming of age ends the warm plan.
    if (this.warm && fresh && !(this.heldUntil !== undefined && now >= this.heldUntil)) return;
    if (!due.recheck && !due.tokenTaken) {
      const waitMs = (due.raise ? this.limits.raise : this.limits.reconcile).reserve(now, MAX_LIMITER_WAIT_MS);
      if (waitMs === undefined) {
        this.summary.rateLimitedPasses++;
        return;
      }
      if (waitMs > 0) return this.enqueue({ at: now + waitMs, recheck: false, tokenTaken: true });
    }
    this.summary.passes++;
    if (!fresh) this.world.list(now);
    const plan = planPool(this.world.snapshot(), poolSettings(this.pool, this.options.sizedBy), now);
    const outcome = await executePlan(plan, this.deps(now));
    this.warm = changesNothing(plan);
    this.heldUntil = plan.heldUntil;
    this.count(outcome, now);
    this.record(now);
  }

  private deps(now: number): PoolPassDeps {
    const world = this.world;
    let runsFrom = now;
    return {
      rows: world.rowWriter(),
      arm: {
        setCapacity: (capacity, etag) => {
          if (!world.setCapacity(capacity, etag, now, runsFrom)) throw new Error('replay: the scale set changed under the pass');
          return Promise.resolve({ done: true });
        },
        deleteInstances: (deletions) => Promise.resolve(void world.delete(deletions)).then(() => ({ done: true })),
        setPower: (power, vms) => {
          this.summary.powerCalls++;
          this.calls.push(now);
          return Promise.resolve(void world.setPower(power, vms, power === 'start' ? runsFrom : now)).then(() => ({ done: true }));
        },
      },
      cache: {
        relist: () => Promise.resolve(world.list(now)),
        relistAfterPower: () => Promise.resolve(void world.list(now)),
        markDeleting: (deletions) => Promise.resolve(world.markDeleting(deletions)),
      },
      lease: { check: () => Promise.resolve() },
      creations: {
        draw: (wanted) => {
          const { granted, waitMs } = this.limits.creation.draw(wanted, now);
          runsFrom = now + waitMs;
          return Promise.resolve(granted);
        },
      },
      deletions: { draw: (wanted) => Promise.resolve(this.limits.deletion.draw(wanted, now).granted) },
      chunkSize: this.pool.chunkSize,
      requeue: () => Promise.resolve(this.enqueue({ at: now + RECHECK_MS, recheck: true, tokenTaken: false })),
      now: () => now,
    };
  }

  private count(outcome: PoolOutcome, now: number): void {
    const s = this.summary;
    for (let i = 0; i < outcome.scaleInCalls; i++) this.calls.push(now);
    if (outcome.raise.kind === 'raised') {
      this.calls.push(now);
      s.capacityWrites++;
      s.vmsCreated += outcome.raise.to - outcome.raise.from;
    }
    s.vmsScaledIn += outcome.scaledIn.length;
    s.vmsParked += outcome.parked.length;
    s.vmsStarted += outcome.woken.length;
    s.deleteCalls += outcome.scaleInCalls;
    s.peakVms = Math.max(s.peakVms, this.world.capacity);
  }

  private enqueue(due: Due): void {
    let i = this.due.length;
    while (i > 0 && this.due[i - 1]!.at > due.at) i--;
    this.due.splice(i, 0, due);
  }

  /** Integrates the VMs paid for up to `t`, and records VMs that started running since. */
  private moveTo(t: number): void {
    for (let ran = this.world.nextRunningAfter(this.settledTo); ran !== undefined && ran <= t; ran = this.world.nextRunningAfter(this.settledTo)) {
      this.settledTo = ran;
      this.record(ran);
    }
    if (t > this.integratedTo) {
      const { parked } = this.world.countAt(this.integratedTo);
      this.vmMs += (this.world.capacity - parked) * (t - this.integratedTo);
      this.parkedMs += parked * (t - this.integratedTo);
      this.integratedTo = t;
    }
    this.settledTo = Math.max(this.settledTo, t);
  }

  private record(at: number): void {
    const { running, creating, starting, parked } = this.world.countAt(at);
    const row: PoolTimelineRow = { at, wanted: this.world.wanted, capacity: this.world.capacity, creating: creating + starting, ready: running, parked };
    const last = this.timeline.at(-1);
    if (last && last.wanted === row.wanted && last.capacity === row.capacity && last.creating === row.creating && last.ready === row.ready && last.parked === row.parked) return;
    if (last && last.at === at) this.timeline[this.timeline.length - 1] = row;
    else this.timeline.push(row);
  }
}
