/**
 * What a reconcile's outcome leaves behind, pure: from the snapshot, the plan and what the
 * executor did, the wake bookkeeping, the Active condition after it, the follow-up
 * re-enqueues, whether to offer the asynchronous probe, the targets row patch and the
 * decision for the log. The caller stores and sends them under its lease.
 */
import { scaleEventFields } from '../limit/policy-stages.js';
import { NO_POLICY } from '../read/policy-settings.js';
import type { Decision } from '../../job/decision.js';
import { computeActiveCondition } from './active-condition.js';
import { trackWake, type WakeOutcome } from '../zero/activation-latency.js';
import type { TargetConditions } from '../read/conditions.js';
import type { TargetSettings } from '../decide/decide-target.js';
import { describeTargetDecision, followUps, type FollowUp, type ScaleOutcome } from '../decide/follow-ups.js';
import { DEFAULT_REPLICAS } from '../decide/plan-scale.js';
import { DEFAULT_ACTIVATION_TIMEOUT_MS, plannedScale } from '../zero/scale-to-zero.js';
import { conditionFields, panicFields, type TargetRecord, type TargetRecordPatch } from '../read/target-record.js';
import type { ObservedTarget } from '../read/target-port.js';
import type { ProbeResult, TargetPlan, TargetSnapshot } from '../decide/plan-target.js';

export interface SettleInput {
  snapshot: TargetSnapshot;
  plan: TargetPlan;
  /** The probe the executor carried out for the plan, if it asked for one. */
  probe: ProbeResult | undefined;
  executed: { write: ScaleOutcome; watched?: { ready: number; at: number }; waking: boolean };
  settings: TargetSettings;
  /** What this reconcile learnt of the load, for the decision log; `error` when the source gave no sample. */
  load: { note: string; error?: string };
  /** Why the reconcile ran: "timer", "forced", a re-enqueue's reason. */
  trigger: string;
  now: number;
}

export interface Settlement {
  wake: WakeOutcome;
  /** The conditions after this reconcile. */
  after: TargetConditions;
  /** Ready replicas after the step (watched, else observed). */
  got: number;
  /** The target's own scale after the step. */
  requested: number;
  followUps: FollowUp[];
  offerAsyncProbe: boolean;
  /** The targets row after this step, as a patch of the current row. */
  recordPatch(current: TargetRecord | undefined): TargetRecordPatch;
  decision: Decision;
}

export function settleTarget(input: SettleInput): Settlement {
  const { snapshot, now, settings } = input;
  const { record, view } = snapshot;
  const { desired, plan, adopted, conditions: before, changes } = input.plan.decided;
  const { write, watched, waking } = input.executed;
  const observed = view.observed;
  const scaleBefore = observed.specReplicas ?? DEFAULT_REPLICAS;
  const got = watched?.ready ?? observed.ready;
  const wake = trackWake({
    pendingSince: record?.wakeRequestedAt,
    scaleBefore,
    applying: plan.kind === 'apply' ? plan.scale : undefined,
    observed: waking ? watched : { ready: observed.ready, at: now },
    now,
  });
  // Adoption is the first look: the conditions it found stand until the next reconcile.
  const after = adopted ? before : computeActiveCondition(before, { want: plannedScale(plan), got, bounds: settings.bounds }, now);

  const requested = requestedAfter(write, observed);
  const settle = { ready: got, requested, lastScaledAt: write.kind === 'written' ? now : record?.lastScaledAt };
  const activationTimeoutMs = settings.scaleToZero.activationTimeoutMs ?? DEFAULT_ACTIVATION_TIMEOUT_MS;
  const poll = settings.pollIntervalMs === undefined ? {} : { pollIntervalMs: settings.pollIntervalMs };
  const wants = followUps({ plan, desired, before, after, write, kind: snapshot.kind, activationTimeoutMs, settle, ...poll, now });
  const { boundBy, forecast } = input.plan.decided;
  const described = describeTargetDecision({ plan, desired, load: input.load, write, wake, dryRun: snapshot.dryRun, probe: input.probe, trigger: input.trigger, ...(boundBy ? { boundBy } : {}), ...(forecast ? { forecast } : {}) });
  const decision = { ...described, ...(boundBy ? { boundBy } : {}), ...(forecast ? { forecast } : {}) };
  const probe = input.probe;

  const recordPatch = (current: TargetRecord | undefined): TargetRecordPatch => {
    const patch: TargetRecordPatch = {
      ...conditionFields(after),
      desiredScale: desired.kind === 'known' ? desired.desired : undefined,
      actualScale: got,
      requestedScale: requested,
      wakeRequestedAt: wake.kind === 'waking' ? wake.since : undefined,
      ...panicFields(settings.desired.panic.enabled ? desired.panic : undefined),
      ...changes,
      boundBy,
      lastError: write.kind === 'failed' || write.kind === 'unread' ? write.error : input.load.error,
    };
    if (adopted) patch.adoptedAt = now;
    if (write.kind === 'written') Object.assign(patch, { lastScaledAt: now }, scaleEventFields(current, changes, (settings.policy ?? NO_POLICY).behavior, write.from, write.to, now));
    if (wake.kind === 'woke') Object.assign(patch, { lastActivationLatencyMs: wake.latencyMs, lastActivationAt: wake.readyAt });
    // The activator's sighting: set by the first probe that finds it, cleared by one that does
    // not, and forgotten once the target is active again (the activator is out of the path).
    if (after.active?.status === 'True') patch.activatorSeenSince = undefined;
    else if (probe) patch.activatorSeenSince = probe.ok ? (current?.activatorSeenSince ?? now) : undefined;
    return patch;
  };
  return { wake, after, got, requested, followUps: wants, offerAsyncProbe: plan.offerAsyncProbe, recordPatch, decision };
}

/** The target's own scale after this step. */
export function requestedAfter(write: ScaleOutcome, observed: ObservedTarget): number {
  return write.kind === 'written' ? write.to : (observed.specReplicas ?? DEFAULT_REPLICAS);
}
