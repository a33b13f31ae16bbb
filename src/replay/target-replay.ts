/**
 * One target's replay on a virtual clock. Reconciles happen when production would run them:
 * at every pushed row of a `push` target (each is a `drover enqueue --load`), at every timer
 * occurrence, and at the due second of every re-enqueue a reconcile asked for (re-enqueues due
 * in the same second collapse, as the sender collapses them). A polled source answers each
 * reconcile with the trace's last value at or before it in its own column (`time,web,jobs`), or
 * in the `load` column when it has none (a lone `load` column feeds every source; a push
 * source among polled ones reads it too). Between reconciles the
 * workload moves on by itself (replicas becoming ready), and the summary integrates over time.
 *
 * Feed rows in time order with `feed`, then `finish` at the end of the trace.
 */
import type { PoolConfig, TargetConfig } from '../config/schema.js';
import { IMPLICIT_LOAD, takeReading } from '../load/collect.js';
import { kindOf } from '../load/registry.js';
import { SampleWindow } from '../load/sample-window.js';
import type { SourceObservation } from '../scaler/recommend/sources-view.js';
import { busyRetryDelay } from '../queue/retry.js';
import { dueSecond } from '../queue/sender.js';
import { targetSettings } from '../scaler/decide/decide-target.js';
import type { BoundRule } from '../scaler/read/bound-rules.js';
import { applyRecordPatch, type TargetRecord } from '../scaler/read/target-record.js';
import { readinessWatch } from '../scaler/write/readiness-watch.js';
import { runScaleStep, type ScaleStepPorts } from '../scaler/write/scale-step.js';
import { targetPortKind } from '../scaler/read/target-port.js';
import { LEASE_TTL_MS } from '../state/leases.js';
import type { ReplaySchedule } from './schedule.js';
import { Timeline, type ReplayForecast } from './timeline.js';
import { Workload, type ReplayWorkload } from './workload.js';
import { PoolWorkload, type PoolReplayResult } from './pool-replay.js';
import { DEFAULT_CREATION_DELAY_MS, DEFAULT_START_DELAY_MS } from './pool-delays.js';

export interface ReplayOptions {
  readyDelayMs: number;
  /** Default: the target's minScale. */
  initialScale?: number;
  schedule: ReplaySchedule;
  /** A Pool target's VMs: from a capacity raise to running (default 3 min). */
  creationDelayMs?: number;
  /** A Pool target's parked VMs (warm buffer): from a start to running (default 40 s). */
  startDelayMs?: number;
}


export interface ReplaySummary {
  /** The target's scale (what is paid for) integrated over the trace, in replica-minutes. */
  replicaMinutes: number;
  peakReplicas: number;
  wakesFromZero: number;
  scaleWrites: number;
  /** Time when load > ready × targetPerReplica. */
  underProvisionedSeconds: number;
  /** Each wake's latency as the reconcile measured it (asked → first ready replica seen). */
  activationLatenciesMs: number[];
  reconciles: number;
  startedAt: number;
  endedAt: number;
}

export interface TargetReplayResult {
  name: string;
  targetPerReplica: number;
  summary: ReplaySummary;
  timeline: Timeline;
  /** When each scale write was made (the quality bench counts those in its scored window). */
  writes: number[];
  /** A Pool target's pool, as its own plan carried the wanted count out. */
  pool?: PoolReplayResult;
}

export class TargetReplay {
  /** Each source's samples (every source reads the trace's value). */
  private readonly sourceSamples: Map<string, SampleWindow>;
  private readonly workload: ReplayWorkload;
  private readonly timeline = new Timeline();
  private readonly writes: number[] = [];
  private readonly requeues: number[] = [];
  /** Pushed values that found the target busy, with when they are delivered again. */
  private readonly retries: { at: number; load: number }[] = [];
  /** Until when the reconcile that woke the target is still watching it (its lease held). */
  private busyUntil = -Infinity;
  private readonly targetPerReplica: number;
  /** The target's settings, from its configuration alone: worked out once, not at every reconcile. */
  private readonly settings: ReturnType<typeof targetSettings>;
  private readonly push: boolean;
  private readonly watch: { watchMs: number; pollMs: number };
  /** The targets row, kept in memory. */
  private row: TargetRecord | undefined;
  private nextTimer: number;
  private cursor: number;
  private load: number | undefined;
  /** Each column's last value so far (`load`, or a source's name). */
  private readonly values = new Map<string, number>();
  private desired: number | undefined;
  /** What bound the last decision, for the timeline. */
  private boundBy: BoundRule | undefined;
  /** The last decision's forecast, for the timeline. */
  private forecast: ReplayForecast | undefined;
  private readonly summary: ReplaySummary;
  private underMs = 0;
  private replicaMs = 0;

  constructor(
    private readonly target: TargetConfig,
    private readonly options: ReplayOptions,
    start: number,
    /** The pool a Pool target sizes. */
    pool?: PoolConfig,
  ) {
    const initial = options.initialScale ?? target.minScale;
    this.workload = pool
      ? new PoolWorkload(pool, { creationDelayMs: options.creationDelayMs ?? DEFAULT_CREATION_DELAY_MS, startDelayMs: options.startDelayMs ?? DEFAULT_START_DELAY_MS, schedule: options.schedule, sizedBy: target.name }, initial, start)
      : new Workload(initial, options.readyDelayMs);
    const sources = (target.load ?? IMPLICIT_LOAD).sources;
    this.targetPerReplica = sources[0]!.targetPerReplica;
    this.settings = targetSettings(target, 1);
    this.push = sources.every((s) => kindOf(s.source).traits.delivery === 'pushed');
    this.sourceSamples = new Map(sources.map((s) => [s.name, new SampleWindow()]));
    this.watch = readinessWatch(targetPortKind(target.scaleTargetRef), target.activationWatch);
    this.nextTimer = options.schedule.next(start - 1);
    this.cursor = start;
    this.summary = { replicaMinutes: 0, peakReplicas: initial, wakesFromZero: 0, scaleWrites: 0, underProvisionedSeconds: 0, activationLatenciesMs: [], reconciles: 0, startedAt: start, endedAt: start };
    this.record();
  }

  /**
   * The trace's next row for this target, at `at` (not before the previous one): `load` for the
   * timeline, `values` by column (a source's own, or `load` for every source without one).
   */
  async feed(at: number, load: number, values: Record<string, number> = { load }): Promise<void> {
    await this.runDue(at, false);
    await this.advance(at);
    this.load = load;
    for (const [name, value] of Object.entries(values)) this.values.set(name, value);
    const pushed = this.push ? this.columnOf(this.sources()[0]!.name) : undefined;
    if (pushed !== undefined && at < this.busyUntil) this.retryLater(at, pushed);
    else if (pushed !== undefined) await this.reconcile(at, pushed);
    else this.record();
  }

  private sources() {
    return (this.target.load ?? IMPLICIT_LOAD).sources;
  }

  /** A source's value now: its own column's, else the `load` column's. */
  private columnOf(name: string): number | undefined {
    return this.values.get(name) ?? this.values.get('load');
  }

  async finish(end: number): Promise<TargetReplayResult> {
    await this.runDue(end, true);
    await this.advance(end);
    const s = this.summary;
    s.endedAt = end;
    s.replicaMinutes = this.replicaMs / 60_000;
    s.underProvisionedSeconds = this.underMs / 1_000;
    const pool = this.workload instanceof PoolWorkload ? { pool: this.workload.result(end) } : {};
    return { name: this.target.name, targetPerReplica: this.targetPerReplica, summary: s, timeline: this.timeline, writes: this.writes, ...pool };
  }

  /**
   * Runs the timer occurrences, re-enqueues and retried pushes due before `t` (or at it, when
   * inclusive). While a waking reconcile still holds the target, a queued reconcile finds it
   * busy and is sent again as the queue's handler sends it (busyRetryDelay), and the timer's
   * pass skips it.
   */
  private async runDue(t: number, inclusive: boolean): Promise<void> {
    for (;;) {
      const requeue = this.requeues[0] ?? Infinity;
      const retry = this.retries[0]?.at ?? Infinity;
      const next = Math.min(requeue, retry, this.nextTimer);
      if (inclusive ? next > t : next >= t) return;
      await this.advance(next);
      if (retry === next) {
        const { load } = this.retries.shift()!;
        if (next < this.busyUntil) this.retryLater(next, load);
        else await this.reconcile(next, load);
      } else if (requeue === next) {
        this.requeues.shift();
        if (next < this.busyUntil) this.requeue(next, next + this.busyRetryDelay(next));
        else await this.reconcile(next, undefined);
      } else {
        // A timer occurrence and a re-enqueue in the same instant are two reconciles.
        this.nextTimer = this.options.schedule.next(next);
        if (next >= this.busyUntil) await this.reconcile(next, undefined);
      }
    }
  }

  /**
   * The trace as this reconcile's readings, each source's from its column (collect.ts's
   * takeReading, as a pass): a pushed value for a push target, else the columns' values.
   */
  private takeReadings(pushed: number | undefined, now: number): { note: string; sources: SourceObservation[] } {
    const keepMs = this.target.scaleToZero.stableWindow;
    const notes: string[] = [];
    const sources = this.sources().map((s): SourceObservation => {
      const reading = pushed ?? (this.push ? undefined : this.columnOf(s.name));
      const raw = reading === undefined ? undefined : { ok: true as const, value: reading };
      const window = this.sourceSamples.get(s.name)!;
      const gauge = kindOf(s.source).traits.sampling === 'gauge';
      const taken = takeReading(window, { kind: s.source, gauge }, raw, pushed !== undefined, now, keepMs);
      notes.push(this.sourceSamples.size === 1 ? taken.note : `${s.name} ${taken.note}`);
      return { name: s.name, window, holdLatest: gauge, read: raw === undefined ? 'none' : 'ok' };
    });
    return { note: notes.join('; '), sources };
  }

  /** The holder's lease is renewed while it watches: it ends no sooner than a lease period from now. */
  private busyRetryDelay(now: number): number {
    return busyRetryDelay(now, now + LEASE_TTL_MS);
  }

  private retryLater(now: number, load: number): void {
    // As the object's pending marker: pushes that find it busy collapse, the latest value wins.
    if (this.retries.length > 0) {
      this.retries[0]!.load = load;
      return;
    }
    const at = dueSecond(now, now + this.busyRetryDelay(now));
    let i = this.retries.length;
    while (i > 0 && this.retries[i - 1]!.at > at) i--;
    this.retries.splice(i, 0, { at, load });
  }

  /** One reconcile through the production scale step, with the workload and the row in memory. */
  private async reconcile(now: number, pushed: number | undefined): Promise<void> {
    this.summary.reconciles++;
    const w = this.workload;
    const target = this.target;
    const { note, sources } = this.takeReadings(pushed, now);
    const observed = w.observed(now);
    const ports: ScaleStepPorts = {
      target: { kind: targetPortKind(target.scaleTargetRef), write: async (to) => void (await w.scaleTo(to, now)) },
      // The activator is taken as present: the synchronous probe, when asked for, answers.
      probeActivator: () => Promise.resolve({ ok: true }),
      checkLease: () => Promise.resolve(),
      beforeWrite: (patch) => Promise.resolve(void (this.row = applyRecordPatch(this.row, patch))),
      watchReadiness: () => Promise.resolve(this.watchAfterWake(now, w.scale)),
    };
    const step = await runScaleStep(
      {
        record: this.row,
        samples: sources[0]!.window,
        holdLatest: sources[0]!.holdLatest,
        view: { kind: 'read', observed },
        settings: this.settings,
        loadNote: note,
        sources,
        trigger: 'replay',
        dryRun: false,
        now,
      },
      ports,
    );
    this.row = applyRecordPatch(this.row, step.recordPatch(this.row));
    this.desired = step.desired.kind === 'known' ? step.desired.desired : undefined;
    this.boundBy = step.boundBy;
    const forecast = step.decision.forecast;
    this.forecast = forecast && { floor: forecast.floor, wouldRaise: forecast.wouldRaise };
    if (step.write.kind === 'written') {
      this.summary.scaleWrites++;
      this.writes.push(now);
      if (step.write.from === 0) this.summary.wakesFromZero++;
      this.summary.peakReplicas = Math.max(this.summary.peakReplicas, step.write.to);
    }
    if (step.wake.kind === 'woke') this.summary.activationLatenciesMs.push(step.wake.latencyMs);
    for (const want of step.followUps) this.requeue(now, want.at);
    this.record();
  }

  /**
   * The reconcile's watch over a wake it just wrote: it looks every poll period until its
   * watch time is up or a replica is ready. The workload was at zero, so the replicas written
   * are all ready one ready delay after the write.
   */
  private watchAfterWake(writtenAt: number, to: number): { ready: number; at: number } | undefined {
    const seen = this.watchOutcome(writtenAt, to);
    if (seen) this.busyUntil = seen.at;
    return seen;
  }

  private watchOutcome(writtenAt: number, to: number): { ready: number; at: number } | undefined {
    const { watchMs, pollMs } = this.watch;
    if (watchMs <= 0) return undefined;
    const readyAt = writtenAt + this.workload.readyDelayMs;
    const firstLookAfterReady = writtenAt + Math.max(1, Math.ceil((readyAt - writtenAt) / pollMs)) * pollMs;
    if (firstLookAfterReady <= writtenAt + watchMs) return { ready: to, at: firstLookAfterReady };
    return readyAt <= writtenAt + watchMs ? { ready: to, at: writtenAt + watchMs } : { ready: 0, at: writtenAt + watchMs };
  }

  /**
   * As the sender: due on the second at or after the instant wanted. A message is never
   * delivered in the instant it is sent.
   */
  private requeue(now: number, at: number): void {
    const due = dueSecond(now, Math.max(at, now + 1));
    const q = this.requeues;
    // As the object's pending marker: one due time, the earliest; its reconcile asks for what still follows.
    if (q.length > 0) {
      q[0] = Math.min(q[0]!, due);
      return;
    }
    let i = q.length;
    while (i > 0 && q[i - 1]! > due) i--;
    if (q[i - 1] !== due) q.splice(i, 0, due);
  }

  /** Moves the clock to `t`, integrating the summary and recording replicas becoming ready. */
  private async advance(t: number): Promise<void> {
    const w = this.workload;
    for (let ready = w.nextEventAt; ready !== undefined && ready <= t; ready = w.nextEventAt) {
      this.integrate(ready);
      await w.settle(ready);
      this.record();
    }
    this.integrate(t);
  }

  private integrate(t: number): void {
    const dt = t - this.cursor;
    if (dt <= 0) return;
    const w = this.workload;
    this.replicaMs += w.scale * dt;
    if (this.load !== undefined && this.load > w.readyAt(this.cursor) * this.targetPerReplica) this.underMs += dt;
    this.cursor = t;
  }

  private record(): void {
    this.timeline.record(this.cursor, this.load ?? 0, this.desired, this.workload.scale, this.workload.readyAt(this.cursor), this.boundBy, this.forecast);
  }
}
