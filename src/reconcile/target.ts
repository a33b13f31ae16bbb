/**
 * One reconcile of a target, the seed's KPA scaler on Drover's backbone:
 *
 *   read the target's scale → sample its load → desired scale (windows, rate limits, panic)
 *   → planScale (synchronous activator probe when it asks) → patch only when the scale differs
 *   → Active condition, activator sighting, wake bookkeeping → targets row
 *   → delayed re-enqueues and the async probe offer.
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
import { errorMessage } from '../log.js';
import { collectLoad } from '../load/collect.js';
import { decideDesiredScale, type DesiredScale } from '../load/decider.js';
import { readSamples, writeSamples } from '../load/sample-store.js';
import { queueClientFor } from '../load/queue-source.js';
import { recordActivationLatency } from '../metrics/activation-latency.js';
import { recordAndFlush } from '../metrics/export.js';
import { probeActivator } from '../probe/activator-probe.js';
import { offerProbe } from '../probe/async-probe.js';
import { computeActiveCondition } from '../scaler/active-condition.js';
import { startsWake, trackWake, type WakeOutcome } from '../scaler/activation.js';
import { initializeConditions, markInactive, type TargetConditions } from '../scaler/conditions.js';
import { DEFAULT_REPLICAS, planWithProbe, type ScaleInput } from '../scaler/scale.js';
import { followUps, describeTargetDecision, type WriteResult } from '../scaler/target-decision.js';
import { conditionFields, conditionsOf, panicFields, panicOf, patchTargetRecord, readTargetRecord, type TargetRecord, type TargetRecordPatch } from '../scaler/target-record.js';
import { isTargetMissing, targetScaleFor, type ObservedTarget, type TargetScale } from '../scaler/target-scale.js';
import { applyScale } from '../scaler/target-write.js';
import type { Decision, ReconcileContext } from './types.js';
import { minuteLoad } from '../state/history.js';

/**
 * How often a waking target is read while the reconcile that woke it watches for readiness: a
 * Kubernetes read is cheap, a scale set's means listing its VMs.
 */
const WATCH_POLL_MS = { kubernetes: 100, scaleSet: 5_000 };

export async function reconcileTarget(ctx: ReconcileContext, target: TargetConfig): Promise<Decision> {
  const { rt, log, signal } = ctx;
  const persist = !ctx.dryRun;
  const record = await readTargetRecord(rt.table('targets'), target.name);
  const scale = await targetScaleFor(rt, target, log);

  let observed: ObservedTarget;
  try {
    observed = await scale.read(isMoving(record));
  } catch (error) {
    if (isTargetMissing(error)) return missing(ctx, target, scale, error);
    throw error;
  }
  // Decisions are taken as of now, once the target has been read (and its adapter loaded): a
  // wake is timed from the load sample taken next, not from a cold start before it.
  const now = rt.clock.now();

  const stableWindowMs = target.scaleToZero.stableWindow;
  const load = await collectLoad(
    target.load,
    ctx.load,
    {
      readSamples: () => readSamples(rt.table('samples'), target.name),
      writeSamples: async (samples) => {
        await ctx.lease.check();
        await writeSamples(rt.table('samples'), target.name, samples, now);
      },
      queueClient: (source) => queueClientFor(source, () => rt.azureCredential()),
    },
    { now, keepMs: stableWindowMs, persist, signal },
  );
  const desired = decideDesiredScale({
    samples: load.samples,
    holdLatest: load.gauge,
    readyReplicas: observed.ready,
    panic: target.panic.enabled ? panicOf(record) : undefined,
    settings: {
      targetPerReplica: load.targetPerReplica,
      stableWindowMs,
      maxScaleUpRate: target.maxScaleUpRate,
      maxScaleDownRate: target.maxScaleDownRate,
      panic: { enabled: target.panic.enabled, windowMs: target.panic.window ?? stableWindowMs / 10, thresholdPercent: target.panic.threshold },
    },
    now,
  });

  const conditions = record?.activeStatus ? conditionsOf(record) : initialConditions(observed, now);
  const bounds = { minScale: target.minScale, maxScale: target.maxScale };
  const input: ScaleInput = {
    desired: desired.desired,
    bounds,
    conditions,
    settings: {
      enableScaleToZero: target.scaleToZero.enabled,
      stableWindowMs,
      gracePeriodMs: target.scaleToZero.gracePeriod,
      activationTimeoutMs: target.activationTimeout,
    },
    activatorSeenSince: record?.activatorSeenSince ?? null,
    currentScale: observed.specReplicas ?? DEFAULT_REPLICAS,
    now,
  };
  const { plan, probe } = await planWithProbe(input, () => probeActivator(target.activator?.probeUrl, { signal }));

  const scaleBefore = observed.specReplicas ?? DEFAULT_REPLICAS;
  const write = await applyScale(
    {
      dryRun: ctx.dryRun,
      signal,
      now,
      checkLease: () => ctx.lease.check(),
      beforeWrite: async ({ from, to, capacityWrites }) => {
        const wakes = startsWake(record?.wakeRequestedAt, from, to);
        if (!capacityWrites && !wakes) return;
        await patchTargetRecord(rt.table('targets'), target.name, () => ({ ...(capacityWrites ? { capacityWrites } : {}), ...(wakes ? { wakeRequestedAt: now } : {}) }));
      },
    },
    scale,
    plan,
    observed,
    record,
  );
  if (write.kind === 'missing') return missing(ctx, target, scale, write.error);

  // The reconcile that wakes a target watches for its first ready replica, to time the wake.
  const waking = write.kind === 'written' && startsWake(record?.wakeRequestedAt, scaleBefore, write.to);
  const watched = waking ? await watchReadiness(ctx, target, scale) : undefined;
  const got = watched?.ready ?? observed.ready;
  const wake = trackWake({
    pendingSince: record?.wakeRequestedAt,
    scaleBefore,
    applying: plan.apply ? plan.scale : undefined,
    observed: waking ? watched : { ready: observed.ready, at: now },
    now,
  });
  const next = computeActiveCondition(conditions, { want: plan.scale, got, bounds }, now);

  const decision = describeTargetDecision({ plan, desired, load, write, wake, dryRun: !persist, probe, trigger: ctx.reason });
  if (!persist) return decision;

  await ctx.lease.check();
  await patchTargetRecord(rt.table('targets'), target.name, (current) =>
    recordPatch({ target, current, next, desired, observed, got, write, wake, probe, error: write.kind === 'failed' ? write.error : load.error, now }),
  );
  if (wake.kind === 'woke') await reportWake(ctx, target, scale, wake);

  const settle = { ready: got, requested: requestedAfter(write, observed), lastScaledAt: write.kind === 'written' ? now : record?.lastScaledAt };
  const wants = followUps({ plan, desired, before: conditions, after: next, write, kind: scale.kind, activationTimeoutMs: target.activationTimeout, settle, now });
  await enqueueFollowUps(ctx, target, wants);
  if (plan.offerAsyncProbe && !(await offerProbe(rt.stores.probe, target))) log.info(`target ${target.name}: async probe already in flight`);
  const load1m = minuteLoad(load.samples, load.gauge, now);
  const fields = { desired: desired.desired, scale: settle.requested, ready: got, ...(load1m === undefined ? {} : { load: load1m }), ...(wake.kind === 'woke' ? { activationMs: wake.latencyMs } : {}) };
  return { ...decision, observed: { kind: 'target', fields } };
}

/**
 * A target seen for the first time starts activating (Knative initialises its conditions so),
 * unless it is at zero already: then it is simply inactive, with nothing to wait for.
 */
function initialConditions(observed: ObservedTarget, now: number): TargetConditions {
  const atZero = observed.specReplicas === 0 && observed.ready === 0;
  return atZero ? markInactive({}, now) : initializeConditions({}, now);
}

/** A target that has not settled at the scale Drover last asked for is read afresh. */
function isMoving(record: TargetRecord | undefined): boolean {
  return record === undefined || record.actualScale !== record.requestedScale || record.activeStatus === 'Unknown' || record.wakeRequestedAt !== undefined;
}

async function watchReadiness(ctx: ReconcileContext, target: TargetConfig, scale: TargetScale): Promise<{ ready: number; at: number } | undefined> {
  const { rt, signal } = ctx;
  const watchMs = target.activationWatch ?? (scale.kind === 'kubernetes' ? 5_000 : 0);
  const until = rt.clock.now() + Math.min(watchMs, ctx.lease.remainingMs() / 2);
  let last: { ready: number; at: number } | undefined;
  while (rt.clock.now() < until && !signal.aborted) {
    await rt.clock.sleep(Math.min(WATCH_POLL_MS[scale.kind], Math.max(0, until - rt.clock.now())), signal).catch(() => undefined);
    // Watching is best effort: a failed read ends it, and the next reconcile sees the wake.
    const read = await scale.read(true).catch(() => undefined);
    if (!read) break;
    const { ready } = read;
    last = { ready, at: rt.clock.now() };
    if (ready >= 1) break;
  }
  return last;
}

function recordPatch(r: {
  target: TargetConfig;
  current: TargetRecord | undefined;
  next: TargetConditions;
  desired: DesiredScale;
  observed: ObservedTarget;
  got: number;
  write: WriteResult;
  wake: WakeOutcome;
  probe: { ok: boolean } | undefined;
  error: string | undefined;
  now: number;
}): TargetRecordPatch {
  const patch: TargetRecordPatch = {
    ...conditionFields(r.next),
    desiredScale: r.desired.desired,
    actualScale: r.got,
    requestedScale: requestedAfter(r.write, r.observed),
    wakeRequestedAt: r.wake.kind === 'waking' ? r.wake.since : undefined,
    ...panicFields(r.target.panic.enabled ? r.desired.panic : undefined),
    lastError: r.error,
  };
  if (r.write.kind === 'written') patch.lastScaledAt = r.now;
  if ((r.write.kind === 'written' || r.write.kind === 'failed') && r.write.capacityWrites !== undefined) patch.capacityWrites = r.write.capacityWrites;
  if (r.wake.kind === 'woke') Object.assign(patch, { lastActivationLatencyMs: r.wake.latencyMs, lastActivationAt: r.wake.readyAt });
  // The activator's sighting: set by the first probe that finds it, cleared by one that does
  // not, and forgotten once the target is active again (the activator is out of the path).
  if (r.next.active?.status === 'True') patch.activatorSeenSince = undefined;
  else if (r.probe) patch.activatorSeenSince = r.probe.ok ? (r.current?.activatorSeenSince ?? r.now) : undefined;
  return patch;
}

/** The target's own scale after this reconcile. */
function requestedAfter(write: WriteResult, observed: ObservedTarget): number {
  return write.kind === 'written' ? write.to : (observed.specReplicas ?? DEFAULT_REPLICAS);
}

async function reportWake(ctx: ReconcileContext, target: TargetConfig, scale: TargetScale, wake: Extract<WakeOutcome, { kind: 'woke' }>): Promise<void> {
  ctx.log.info(`target ${target.name}: woke from zero in ${wake.latencyMs} ms (asked ${new Date(wake.since).toISOString()}, first ready replica ${new Date(wake.readyAt).toISOString()})`);
  await recordAndFlush(ctx.rt.env, ctx.log, (provider) =>
    recordActivationLatency({ target: target.name, kind: scale.kind, latencyMs: wake.latencyMs }, provider),
  ).catch((error: unknown) => ctx.log.warn(`target ${target.name}: could not record the activation latency metric: ${errorMessage(error)}`));
}

async function enqueueFollowUps(ctx: ReconcileContext, target: TargetConfig, wants: { at: number; why: string }[]): Promise<void> {
  if (wants.length === 0) return;
  const { rt } = ctx;
  await ctx.lease.check();
  // Wants due in the same second collapse into one message in the sender.
  for (const want of wants.sort((a, b) => a.at - b.at)) {
    await rt.queues.reconcileAt({ kind: 'target', name: target.name, reason: want.why }, want.at);
  }
}

async function missing(ctx: ReconcileContext, target: TargetConfig, scale: TargetScale, error: unknown): Promise<Decision> {
  const message = errorMessage(error);
  if (!ctx.dryRun) {
    await ctx.lease.check();
    await patchTargetRecord(ctx.rt.table('targets'), target.name, (current) => (current?.lastError === message ? undefined : { lastError: message }));
  }
  return {
    decision: 'target missing',
    reason: `${scale.description} does not exist: create it or fix targets[].scaleTargetRef; nothing is retried until then`,
    error: message,
  };
}
