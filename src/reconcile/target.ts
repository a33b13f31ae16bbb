/**
 * One reconcile of a target, the seed's KPA scaler on Drover's backbone:
 *
 *   read the target (or, when that fails, plan from its stored record) → sample its load
 *   → runScaleStep (decideTarget, the synchronous probe when it asks, a fenced write only when
 *   the scale differs, wake and Active condition bookkeeping)
 *   → targets row (fenced by its revision) → delayed re-enqueues and the async probe offer.
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
import type { TargetConfig } from '../config/schema.js';
import { isTransient } from '../errors/transient.js';
import { errorMessage } from '../log.js';
import { collectLoad, type CollectedLoad } from '../load/collect.js';
import { readSamples, writeSamples } from '../load/sample-store.js';
import { queueClientFor } from '../load/queue-source.js';
import { recordActivationLatency } from '../metrics/activation-latency.js';
import { recordAndFlush } from '../metrics/export.js';
import { probeActivator } from '../probe/activator-probe.js';
import { offerProbe } from '../probe/async-probe.js';
import type { WakeOutcome } from '../scaler/decide/activation.js';
import { targetSettings } from '../scaler/decide/decide-target.js';
import type { FollowUp } from '../scaler/decide/follow-ups.js';
import type { TargetRecord } from '../scaler/decide/target-record.js';
import { requestedAfter, runScaleStep, type ScaleStepOutcome, type TargetView } from '../scaler/shell/scale-step.js';
import { isTargetMissing, targetPortFor, type TargetPort } from '../scaler/shell/target-port.js';
import { readTargetRecord, writeTargetRecord } from '../scaler/shell/target-store.js';
import type { TargetHistoryFields } from '../state/history.js';
import { SampleWindow } from '../load/sample-window.js';
import { readinessWatch } from '../scaler/shell/readiness-watch.js';
import type { Decision, ReconcileContext } from './types.js';

export async function reconcileTarget(ctx: ReconcileContext, target: TargetConfig): Promise<Decision> {
  const { rt, log, signal } = ctx;
  const persist = !ctx.dryRun;
  const table = rt.table('targets');
  const record = await readTargetRecord(table, target.name);
  // Every write of this reconcile to the row is fenced on the revision it read.
  let revision = record?.revision ?? 0;
  const port = await targetPortFor(rt, target, log);

  let view: TargetView;
  try {
    view = { kind: 'read', observed: await port.read(isMoving(record)) };
  } catch (error) {
    if (isTargetMissing(error)) return missing(ctx, target, port, error, revision);
    // A target never seen before has nothing to plan from: only the error is recorded.
    if (record?.activeStatus === undefined) return unreadable(ctx, target, port, error, revision);
    view = { kind: 'stored', observed: storedObservation(record), error: errorMessage(error), transient: isTransient(error) };
  }
  // Decisions are taken as of now, once the target has been read (and its adapter loaded): a
  // wake is timed from the load sample taken next, not from a cold start before it.
  const now = rt.clock.now();

  const stableWindowMs = target.scaleToZero.stableWindow;
  let samplesEtag: string | undefined;
  const load = await collectLoad(
    target.load,
    ctx.load,
    {
      readSamples: async () => {
        const stored = await readSamples(rt.table('samples'), target.name);
        samplesEtag = stored.etag;
        return stored.samples;
      },
      writeSamples: async (samples) => {
        await ctx.lease.check();
        await writeSamples(rt.table('samples'), target.name, samples, now, samplesEtag);
      },
      queueClient: (source) => queueClientFor(source, () => rt.azureCredential()),
    },
    { now, keepMs: stableWindowMs, persist, signal },
  );

  const step = await runScaleStep(
    {
      record,
      samples: load.samples,
      holdLatest: load.gauge,
      view,
      settings: targetSettings(target, load.targetPerReplica),
      loadNote: load.note,
      ...(load.error ? { loadError: load.error } : {}),
      trigger: ctx.reason,
      dryRun: !persist,
      now,
    },
    {
      target: port,
      probeActivator: () => probeActivator(target.activator?.probeUrl, { signal }),
      checkLease: () => ctx.lease.check(),
      beforeWrite: async (patch) => {
        revision = await writeTargetRecord(table, target.name, revision, () => patch);
      },
      watchReadiness: () => watchReadiness(ctx, target, port),
      signal,
    },
  );
  if (step.write.kind === 'missing') return missing(ctx, target, port, step.write.error, revision);
  if (!persist) return withObservation(step.decision, view, step, load);

  await ctx.lease.check();
  await writeTargetRecord(table, target.name, revision, step.recordPatch);
  if (step.wake.kind === 'woke') await reportWake(ctx, target, port, step.wake);
  await enqueueFollowUps(ctx, target, step.followUps);
  if (step.offerAsyncProbe && !(await offerProbe(rt.stores.probe, target))) log.info(`target ${target.name}: async probe already in flight`);
  return withObservation(step.decision, view, step, load);
}

/**
 * The decision with what the reconcile saw of a target it read, for the `history` table. A
 * target planned from its stored record was not seen: its minute gets no point.
 */
function withObservation(decision: Decision, view: TargetView, step: ScaleStepOutcome, load: Pick<CollectedLoad, 'samples' | 'gauge'>): Decision {
  if (view.kind !== 'read') return decision;
  const active = step.after.active?.status;
  const fields: TargetHistoryFields = {
    desired: step.desired.desired,
    scale: requestedAfter(step.write, view.observed),
    ready: step.got,
    ...(active === 'True' ? { active: 1 } : active === 'False' ? { active: 0 } : {}),
    ...(step.wake.kind === 'woke' ? { activationMs: step.wake.latencyMs } : {}),
  };
  const samples = load.samples instanceof SampleWindow ? load.samples.toArray() : load.samples;
  return { ...decision, observed: { kind: 'target', fields, events: targetEvents(step), samples, gauge: load.gauge } };
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

async function watchReadiness(ctx: ReconcileContext, target: TargetConfig, scale: TargetPort): Promise<{ ready: number; at: number } | undefined> {
  const { rt, signal } = ctx;
  const { watchMs, pollMs } = readinessWatch(scale.kind, target.activationWatch);
  const until = rt.clock.now() + Math.min(watchMs, ctx.lease.remainingMs() / 2);
  let last: { ready: number; at: number } | undefined;
  while (rt.clock.now() < until && !signal.aborted) {
    await rt.clock.sleep(Math.min(pollMs, Math.max(0, until - rt.clock.now())), signal).catch(() => undefined);
    // Watching is best effort: a failed read ends it, and the next reconcile sees the wake.
    const read = await scale.read(true).catch(() => undefined);
    if (!read) break;
    const { ready } = read;
    last = { ready, at: rt.clock.now() };
    if (ready >= 1) break;
  }
  return last;
}

async function reportWake(ctx: ReconcileContext, target: TargetConfig, scale: TargetPort, wake: Extract<WakeOutcome, { kind: 'woke' }>): Promise<void> {
  ctx.log.info(`target ${target.name}: woke from zero in ${wake.latencyMs} ms (asked ${new Date(wake.since).toISOString()}, first ready replica ${new Date(wake.readyAt).toISOString()})`);
  await recordAndFlush(ctx.rt.env, ctx.log, (provider) =>
    recordActivationLatency({ target: target.name, kind: scale.kind, latencyMs: wake.latencyMs }, provider),
  ).catch((error: unknown) => ctx.log.warn(`target ${target.name}: could not record the activation latency metric: ${errorMessage(error)}`));
}

async function enqueueFollowUps(ctx: ReconcileContext, target: TargetConfig, wants: FollowUp[]): Promise<void> {
  if (wants.length === 0) return;
  const { rt } = ctx;
  await ctx.lease.check();
  // Wants due in the same second collapse into one message in the sender.
  for (const want of wants.sort((a, b) => a.at - b.at)) {
    await rt.queues.reconcileAt({ kind: 'target', name: target.name, reason: want.why }, want.at);
  }
}

async function missing(ctx: ReconcileContext, target: TargetConfig, port: TargetPort, error: unknown, revision: number): Promise<Decision> {
  const message = errorMessage(error);
  await recordError(ctx, target, message, revision);
  return {
    decision: 'target missing',
    reason: `${port.description} does not exist: create it or fix targets[].scaleTargetRef; nothing is retried until then`,
    error: message,
  };
}

async function unreadable(ctx: ReconcileContext, target: TargetConfig, port: TargetPort, error: unknown, revision: number): Promise<Decision> {
  const message = errorMessage(error);
  await recordError(ctx, target, message, revision);
  return { decision: 'target unreadable', reason: `${port.description} could not be read and was never seen before: nothing to plan from`, error: message, transient: isTransient(error) };
}

async function recordError(ctx: ReconcileContext, target: TargetConfig, message: string, revision: number): Promise<void> {
  if (ctx.dryRun) return;
  await ctx.lease.check();
  await writeTargetRecord(ctx.rt.table('targets'), target.name, revision, (current) => (current?.lastError === message ? {} : { lastError: message }));
}
