/**
 * One reconcile of a target, the seed's KPA scaler on Drover's backbone:
 *
 *   read the target (or, when that fails, plan from its stored record) → sample its load
 *   (its one source, or each of several within its own deadline)
 *   → runScaleStep (planTarget, the executor: the synchronous probe when the plan asks, a fenced
 *   write only when the scale differs, the watch of a wake; settleTarget: wake and Active
 *   condition bookkeeping) → targets row (fenced by its revision) → delayed re-enqueues and
 *   the async probe offer.
 *
 * It takes only what it uses (TargetPassDeps, built in scaler/write/target-pass-deps.ts).
 *
 * A target seen for the first time is adopted as it runs: nothing is written to it.
 *
 * Where the seed relied on informers to be woken up, Drover re-enqueues itself: right after a
 * target is marked inactive (the seed's SKS reconcile), while it waits for a ready replica, and
 * while a rate limit holds a step back. Re-enqueues name an instant computed from stored
 * state, so a redelivered message lands on the same due second and adds no second chain.
 *
 * A target that does not exist is reported as an error that is not retried: the timer pass
 * counts it (exit code 1), a queued reconcile of it is not retried into the poison queue, and
 * the row's lastError says so until the configuration or the cluster is fixed.
 */
import type { TargetConfig } from '../../config/schema.js';
import { isTransient } from '../../errors/transient.js';
import { errorMessage } from '../../log.js';
import { collectLoad, IMPLICIT_LOAD, type CollectedLoad } from '../../load/collect.js';
import type { SampleSeries } from '../../load/sample-store.js';
import { targetSettings } from '../decide/decide-target.js';
import type { FollowUp } from '../decide/follow-ups.js';
import type { TargetRecord } from '../read/target-record.js';
import { requestedAfter, runScaleStep, type ScaleStepOutcome, type TargetView } from './scale-step.js';
import { isTargetMissing } from '../read/target-port.js';
import type { TargetHistoryFields } from '../../state/history.js';
import { readinessWatch } from './readiness-watch.js';
import type { Served, TargetPassDeps } from './target-pass-deps.js';
import { pushToServe, type PushToServe } from '../../load/push-served.js';
import type { Decision, ReconcileRequest } from '../../job/context.js';
import { leftAlone, leftToNewer, stampOf } from '../../job/config-stamp.js';

export async function reconcileTarget(deps: TargetPassDeps, target: TargetConfig, request: ReconcileRequest): Promise<Decision> {
  const { port, row, lease, clock, signal } = deps;
  const persist = !request.dryRun;
  const record = await row.read();
  const newer = await leftToNewer(stampOf(record), deps.configuration, deps.newerLive);
  if (newer !== undefined) return leftAlone(newer, deps.configuration);

  let view: TargetView;
  try {
    view = { kind: 'read', observed: await port.read(isMoving(record)) };
  } catch (error) {
    if (isTargetMissing(error)) return missing(deps, target, error, persist);
    // A target never seen before has nothing to plan from: only the error is recorded.
    if (record?.activeStatus === undefined) return unreadable(deps, error, persist);
    view = { kind: 'stored', observed: storedObservation(record), error: errorMessage(error), transient: isTransient(error) };
  }
  // Decisions are taken as of now, once the target has been read (and its adapter loaded): a
  // wake is timed from the load sample taken next, not from a cold start before it.
  const now = clock.now();

  const load = await collect(deps, target, { now, persist });

  const step = await runScaleStep(
    {
      record,
      samples: load.sources[0]!.samples,
      holdLatest: load.sources[0]!.holdLatest,
      view,
      settings: targetSettings(target, 1),
      loadNote: load.note,
      ...(load.error ? { loadError: load.error } : {}),
      sources: load.sources.map((s) => ({ name: s.name, window: s.samples, holdLatest: s.holdLatest, read: s.read, ...(s.error ? { error: s.error } : {}), ...(s.measuredAt !== undefined ? { measuredAt: s.measuredAt } : {}) })),
      trigger: request.reason,
      dryRun: !persist,
      now,
    },
    {
      target: port,
      probeActivator: deps.probe,
      checkLease: () => fenceScaleWrite(deps),
      beforeWrite: (patch) => row.write(() => patch),
      watchReadiness: () => watchReadiness(deps, target),
      signal,
    },
  );
  if (step.write.kind === 'missing') return missing(deps, target, step.write.error, persist);
  if (!persist) return withObservation(step.decision, view, step, load);

  // Each write takes the lease first; a steady pass writes nothing and takes none.
  await row.write(step.recordPatch, () => lease.check());
  if (step.wake.kind === 'woke') await reportWake(deps, target, step.wake);
  await enqueueFollowUps(deps, step.followUps);
  if (step.offerAsyncProbe) {
    await lease.check();
    if (!(await deps.offerProbe())) deps.log.info(`target ${target.name}: async probe already in flight`);
  }
  return withObservation(step.decision, view, step, load);
}

/**
 * Before a scale write: the lease, then the row as read. The pass may have read the row long
 * before (a source slow to answer) and taken no lease until now, so a `drover pause` can have
 * come in between; it bumped the revision, and the write is refused here (the reconcile fails,
 * to run again and obey it). From here on the pass holds the lease, which the pause waits for.
 */
async function fenceScaleWrite(deps: TargetPassDeps): Promise<void> {
  await deps.lease.check();
  await deps.row.confirm();
}

/**
 * The samples row and, for a target with a push source, its push row, read together: a push the
 * samples row does not record as served is this reconcile's push reading.
 */
async function withPush<T>(read: () => Promise<Served<T>>): Promise<{ stored: T; push: PushToServe | undefined }> {
  const stored = await read();
  return { stored: stored.value, push: pushToServe(stored.push, stored.pushTag) };
}

/** This reconcile's look at the load: every source read, within its own deadline (load/collect.ts). */
export async function collect(deps: Pick<TargetPassDeps, 'lease' | 'signal' | 'sampleSeries' | 'sourceReader'>, target: TargetConfig, { now, persist }: { now: number; persist: boolean }): Promise<CollectedLoad> {
  const { lease, signal } = deps;
  const writeSeries = async (series: SampleSeries, pushTag?: string) => {
    await lease.check();
    await deps.sampleSeries.write(series, now, pushTag);
  };
  const names = (target.load ?? IMPLICIT_LOAD).sources.map((s) => s.name);
  const { stored, push } = await withPush(() => deps.sampleSeries.read(names));
  return collectLoad(target.load, push, { readSeries: () => Promise.resolve(stored), writeSeries, reader: deps.sourceReader }, { now, keepMs: target.scaleToZero.stableWindow, persist, signal });
}

/**
 * The decision with what the reconcile saw of a target it read, for the `history` table. A
 * target planned from its stored record was not seen: its minute gets no point.
 */
function withObservation(decision: Decision, view: TargetView, step: ScaleStepOutcome, load: CollectedLoad): Decision {
  if (view.kind !== 'read') return decision;
  const active = step.after.active?.status;
  const fields: TargetHistoryFields = {
    desired: step.desired.desired,
    scale: requestedAfter(step.write, view.observed),
    ready: step.got,
    ...(active === 'True' ? { active: 1 } : active === 'False' ? { active: 0 } : {}),
    ...(step.wake.kind === 'woke' ? { activationMs: step.wake.latencyMs } : {}),
  };
  // The first source's samples stand for the target's load in its history.
  const first = load.sources[0]!;
  return { ...decision, observed: { kind: 'target', fields, events: targetEvents(step), samples: first.samples.toArray(), gauge: first.holdLatest } };
}

/** What a target pass marks on the timeline: its Active condition changing, a wake from zero. */
function targetEvents(step: ScaleStepOutcome): string[] {
  const was = step.before.active?.status;
  const is = step.after.active?.status;
  const events = was !== undefined && is !== undefined && was !== is ? [is === 'True' ? 'active' : is === 'False' ? 'inactive' : 'activating'] : [];
  if (step.wake.kind === 'woke') events.push(`woke from zero in ${step.wake.latencyMs} ms`);
  return events;
}

/** The target as its record last left it: its own scale and ready replicas then. */
function storedObservation(record: TargetRecord): { specReplicas?: number; ready: number } {
  return { ...(record.requestedScale === undefined ? {} : { specReplicas: record.requestedScale }), ready: record.actualScale ?? 0 };
}

/** A target that has not settled at the scale Drover last asked for is read afresh. */
function isMoving(record: TargetRecord | undefined): boolean {
  return record === undefined || record.actualScale !== record.requestedScale || record.activeStatus === 'Unknown' || record.wakeRequestedAt !== undefined;
}

async function watchReadiness(deps: TargetPassDeps, target: TargetConfig): Promise<{ ready: number; at: number } | undefined> {
  const { clock, signal, port, lease } = deps;
  const { watchMs, pollMs } = readinessWatch(port.kind, target.activationWatch);
  const until = clock.now() + Math.min(watchMs, lease.remainingMs() / 2);
  let last: { ready: number; at: number } | undefined;
  while (clock.now() < until && !signal.aborted) {
    await clock.sleep(Math.min(pollMs, Math.max(0, until - clock.now())), signal).catch(() => undefined);
    // Watching is best effort: a failed read ends it, and the next reconcile sees the wake.
    const read = await port.read(true).catch(() => undefined);
    if (!read) break;
    const { ready } = read;
    last = { ready, at: clock.now() };
    if (ready >= 1) break;
  }
  return last;
}

async function reportWake(deps: TargetPassDeps, target: TargetConfig, wake: { since: number; readyAt: number; latencyMs: number }): Promise<void> {
  deps.log.info(`target ${target.name}: woke from zero in ${wake.latencyMs} ms (asked ${new Date(wake.since).toISOString()}, first ready replica ${new Date(wake.readyAt).toISOString()})`);
  await deps.recordWake(wake.latencyMs);
}

async function enqueueFollowUps(deps: TargetPassDeps, wants: FollowUp[]): Promise<void> {
  if (wants.length === 0) return;
  await deps.lease.check();
  // Wants due in the same second collapse into one message in the sender.
  for (const want of wants.sort((a, b) => a.at - b.at)) await deps.reconcileAt({ reason: want.why }, want.at);
}

async function missing(deps: TargetPassDeps, target: TargetConfig, error: unknown, persist: boolean): Promise<Decision> {
  const message = errorMessage(error);
  await recordError(deps, message, persist);
  return {
    decision: 'target missing',
    reason: `${deps.port.description} does not exist: create it or fix targets[].scaleTargetRef; nothing is retried until then`,
    error: message,
  };
}

async function unreadable(deps: TargetPassDeps, error: unknown, persist: boolean): Promise<Decision> {
  const message = errorMessage(error);
  await recordError(deps, message, persist);
  return { decision: 'target unreadable', reason: `${deps.port.description} could not be read and was never seen before: nothing to plan from`, error: message, transient: isTransient(error) };
}

async function recordError(deps: TargetPassDeps, message: string, persist: boolean): Promise<void> {
  if (!persist) return;
  await deps.row.write((current) => (current?.lastError === message ? {} : { lastError: message }), () => deps.lease.check());
}
