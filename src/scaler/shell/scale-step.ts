/**
 * One scale step of a target, the one path production and the upstream tables share:
 *
 *   decideTarget (synchronous activator probe when it asks) → applyScale (fenced write, only
 *   for an `apply` plan that differs from the target's own) → watch for the first ready
 *   replica of a wake → Active condition → wake bookkeeping → follow-up re-enqueues, async
 *   probe offer, the targets row patch and the decision log entry.
 *
 * Everything it touches comes in as plain data and ports, with `now` given: the reconcile
 * passes the real target, probe and lease; a table or a replay passes fakes and a virtual
 * clock. It does not store the row, send messages or offer the probe: the outcome says what
 * to store and send, and the caller does it under its lease.
 */
import type { Decision } from '../../decision.js';
import type { DesiredInput, DesiredScale } from '../../load/decider.js';
import { computeActiveCondition } from '../decide/active-condition.js';
import { startsWake, trackWake, type WakeOutcome } from '../decide/activation.js';
import type { TargetConditions } from '../decide/conditions.js';
import { decideTarget, type TargetDecided, type TargetSettings } from '../decide/decide-target.js';
import { describeTargetDecision, followUps, type FollowUp, type WriteResult } from '../decide/follow-ups.js';
import { DEFAULT_REPLICAS } from '../decide/plan-scale.js';
import { DEFAULT_ACTIVATION_TIMEOUT_MS, plannedScale, type ScalePlan, type SyncProbeResult } from '../decide/scale-to-zero.js';
import { conditionFields, panicFields, type TargetRecord, type TargetRecordPatch } from '../decide/target-record.js';
import { applyScale } from './apply-scale.js';
import type { ObservedTarget, TargetPort } from './target-port.js';

export type ProbeResult = SyncProbeResult & { error?: string };

/** What the reconcile could see of the target: a fresh read, or its stored record when the read failed. */
export type TargetView =
  | { kind: 'read'; observed: ObservedTarget }
  /** `transient`: whether the failed read may pass by itself (`isTransient`). */
  | { kind: 'stored'; observed: ObservedTarget; error: string; transient: boolean };

export interface ScaleStepInput {
  record: TargetRecord | undefined;
  /** The target's load samples: a `SampleWindow`, an array, or anything with its `average`. */
  samples: DesiredInput['samples'];
  /** The source is a gauge (push): an empty window reads as its last value. */
  holdLatest: boolean;
  view: TargetView;
  settings: TargetSettings;
  /** What this reconcile learnt of the load, for the decision log. */
  loadNote: string;
  /** Set when the load source was read and gave no sample. */
  loadError?: string;
  /** Why the reconcile ran: "timer", "forced", a re-enqueue's reason. */
  trigger: string;
  dryRun: boolean;
  now: number;
}

export interface ScaleStepPorts {
  target: Pick<TargetPort, 'kind' | 'write'>;
  /** One synchronous activator probe; reports failure as `{ ok: false }` rather than throwing. */
  probeActivator(): Promise<ProbeResult>;
  /** The lease check that must precede every write. */
  checkLease(): Promise<void>;
  /** Saves what must survive the write (write budget, start of a wake); after the lease check, before the write. */
  beforeWrite?(patch: TargetRecordPatch): Promise<void>;
  /** After the write that wakes a target from zero: its ready replicas, watched for a while. */
  watchReadiness?(): Promise<{ ready: number; at: number } | undefined>;
  signal?: AbortSignal;
}

export interface ScaleStepOutcome {
  desired: DesiredScale;
  /** The conditions planned on, and after this reconcile. */
  before: TargetConditions;
  after: TargetConditions;
  adopted: boolean;
  plan: ScalePlan;
  probe: ProbeResult | undefined;
  write: WriteResult;
  wake: WakeOutcome;
  /** Ready replicas after the step (watched, else observed). */
  got: number;
  followUps: FollowUp[];
  offerAsyncProbe: boolean;
  /** The targets row after this step, as a patch of the current row. */
  recordPatch(current: TargetRecord | undefined): TargetRecordPatch;
  decision: Decision;
}

export async function runScaleStep(input: ScaleStepInput, ports: ScaleStepPorts): Promise<ScaleStepOutcome> {
  const { record, view, now } = input;
  const observed = view.observed;
  const scaleBefore = observed.specReplicas ?? DEFAULT_REPLICAS;
  const decisionInput = { record, samples: input.samples, holdLatest: input.holdLatest, observation: { scale: scaleBefore, ready: observed.ready }, settings: input.settings, now };
  const { decided, probe } = await decideWithProbe(decisionInput, ports.probeActivator);
  const { plan, desired, adopted } = decided;
  const before = decided.conditions;

  const write: WriteResult =
    view.kind === 'stored'
      ? { kind: 'unread', error: view.error, transient: view.transient }
      : await applyScale(
          {
            dryRun: input.dryRun,
            ...(ports.signal ? { signal: ports.signal } : {}),
            now,
            checkLease: ports.checkLease,
            beforeWrite: async ({ from, to, capacityWrites }) => {
              const wakes = startsWake(record?.wakeRequestedAt, from, to);
              if ((!capacityWrites && !wakes) || !ports.beforeWrite) return;
              await ports.beforeWrite({ ...(capacityWrites ? { capacityWrites } : {}), ...(wakes ? { wakeRequestedAt: now } : {}) });
            },
          },
          ports.target,
          plan,
          observed,
          record,
        );

  // The reconcile that wakes a target watches for its first ready replica, to time the wake.
  const waking = write.kind === 'written' && startsWake(record?.wakeRequestedAt, scaleBefore, write.to);
  const watched = waking && ports.watchReadiness ? await ports.watchReadiness() : undefined;
  const got = watched?.ready ?? observed.ready;
  const wake = trackWake({
    pendingSince: record?.wakeRequestedAt,
    scaleBefore,
    applying: plan.kind === 'apply' ? plan.scale : undefined,
    observed: waking ? watched : { ready: observed.ready, at: now },
    now,
  });
  // Adoption is the first look: the conditions it found stand until the next reconcile.
  const after = adopted ? before : computeActiveCondition(before, { want: plannedScale(plan), got, bounds: input.settings.bounds }, now);

  const requested = requestedAfter(write, observed);
  const settle = { ready: got, requested, lastScaledAt: write.kind === 'written' ? now : record?.lastScaledAt };
  const activationTimeoutMs = input.settings.scaleToZero.activationTimeoutMs ?? DEFAULT_ACTIVATION_TIMEOUT_MS;
  const wants = followUps({ plan, desired, before, after, write, kind: ports.target.kind, activationTimeoutMs, settle, now });
  const decision = describeTargetDecision({ plan, desired, load: { note: input.loadNote }, write, wake, dryRun: input.dryRun, probe, trigger: input.trigger });

  const recordPatch = (current: TargetRecord | undefined): TargetRecordPatch => {
    const patch: TargetRecordPatch = {
      ...conditionFields(after),
      desiredScale: desired.kind === 'known' ? desired.desired : undefined,
      actualScale: got,
      requestedScale: requested,
      wakeRequestedAt: wake.kind === 'waking' ? wake.since : undefined,
      ...panicFields(input.settings.desired.panic.enabled ? desired.panic : undefined),
      lastError: write.kind === 'failed' || write.kind === 'unread' ? write.error : input.loadError,
    };
    if (adopted) patch.adoptedAt = now;
    if (write.kind === 'written') patch.lastScaledAt = now;
    if ((write.kind === 'written' || write.kind === 'failed') && write.capacityWrites !== undefined) patch.capacityWrites = write.capacityWrites;
    if (wake.kind === 'woke') Object.assign(patch, { lastActivationLatencyMs: wake.latencyMs, lastActivationAt: wake.readyAt });
    // The activator's sighting: set by the first probe that finds it, cleared by one that does
    // not, and forgotten once the target is active again (the activator is out of the path).
    if (after.active?.status === 'True') patch.activatorSeenSince = undefined;
    else if (probe) patch.activatorSeenSince = probe.ok ? (current?.activatorSeenSince ?? now) : undefined;
    return patch;
  };

  return { desired, before, after, adopted, plan, probe, write, wake, got, followUps: wants, offerAsyncProbe: plan.offerAsyncProbe, recordPatch, decision };
}

/** decideTarget with its synchronous probe carried out, only when the decision asks for it. */
async function decideWithProbe(
  input: Parameters<typeof decideTarget>[0],
  probeActivator: () => Promise<ProbeResult>,
): Promise<{ decided: TargetDecided; probe?: ProbeResult }> {
  const first = decideTarget(input);
  if (first.kind === 'decided') return { decided: first };
  const probe = await probeActivator();
  const second = decideTarget({ ...input, probe });
  if (second.kind === 'probe') throw new Error('the scale decision asked for a second probe');
  return { decided: second, probe };
}

/** The target's own scale after this step. */
export function requestedAfter(write: WriteResult, observed: ObservedTarget): number {
  return write.kind === 'written' ? write.to : (observed.specReplicas ?? DEFAULT_REPLICAS);
}
