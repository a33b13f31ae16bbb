/**
 * What a target's reconcile reports and which re-enqueues it asks for, from plain data.
 *
 * Re-enqueues stand in for the informer events the seed was woken by: the SKS reconcile that
 * follows marking a target inactive (a second later), readiness of a waking target (polled),
 * the next step of a rate-limited change (on Knative's two-second tick), the plan's own waits, and the next poll of an
 * http or queue source (`load.pollInterval`).
 */
import type { Decision } from '../../job/decision.js';
import type { DesiredScale } from '../../load/decider.js';
import type { BoundRule } from '../read/bound-rules.js';
import type { ForecastLine } from '../../state/decisions.js';
import type { WakeOutcome } from '../zero/activation-latency.js';
import type { TargetConditions } from '../read/conditions.js';
import { nextGridPoint } from './requeue.js';
import type { ScalePlan, ScaleReason } from '../zero/scale-to-zero.js';

/** What became of a plan's scale: nothing to write, or the executor's write. */
export type WriteResult =
  | { kind: 'none' }
  | { kind: 'unchanged'; current: number }
  | { kind: 'would'; from: number; to: number }
  | { kind: 'written'; from: number; to: number; note?: string }
  | { kind: 'failed'; from: number; to: number; error: string; transient: boolean }
  | { kind: 'missing'; error: unknown };

/** The target could not be read: the plan was made from its stored record, nothing written. */
export interface TargetUnread {
  kind: 'unread';
  error: string;
  transient: boolean;
}

/** What a reconcile made of the target's scale: a write result, or no read to write on. */
export type ScaleOutcome = WriteResult | TargetUnread;

/** The seed's re-enqueue period. */
const REENQUEUE_MS = 1_000;
/** Knative's autoscaler tick: a rate-limited change takes its next step this often. */
const RATE_STEP_MS = 2_000;
/**
 * Polls of a target that has not settled (activating, or ready replicas not yet at the scale
 * last written): briskly at first, then calmer; scale sets take minutes anyway. A target that
 * has not settled this long after its last write is left to the timer.
 */
export const SETTLE_POLL = { kubernetesFirstMs: 1_000, kubernetesBriskForMs: 30_000, laterMs: 10_000, giveUpAfterMs: 5 * 60_000 };

/** Why a poll of the load source was asked for. */
export const POLL_WHY = 'poll the load source';

const REASONS: Record<ScaleReason, string> = {
  adopted: 'first sight: adopted as it runs, nothing written',
  'metrics-not-collected': 'no load sample in the stable window: scale left as it is',
  'raised-to-lower-bound': 'no load sample in the stable window: raised to the lower bound, never lowered',
  'activation-timed-out-without-samples': 'the activation timed out without a load sample: scale left as it is',
  'already-at-zero': 'inactive and at zero already: nothing to probe or write',
  'desired-nonzero': 'the desired scale applies',
  'scale-to-zero-disabled': 'scale to zero is disabled: held at 1',
  'activation-timed-out': 'the activation timed out: scaled to zero',
  activating: 'waiting for a ready replica',
  'stable-window-elapsed': 'no load now, and active for longer than the stable window: marked inactive',
  'stable-window-pending': 'idle: held at 1 until the stable window has passed',
  'grace-period-elapsed': 'inactive past the grace period with the activator in front: scaled to zero',
  'activator-backed-for-grace-period': 'the activator has been in front for the grace period: scaled to zero',
  'grace-period-pending': 'inactive with the activator in front: waiting out the grace period',
  'activator-not-in-path': 'the activator is not in front yet: probing it asynchronously',
  'idle-at-zero': 'at zero, and no source above its activation threshold: left there (no activator needed: the queue holds the work)',
  'cooldown-pending': 'no source active: held at 1 until the cooldown has passed since the last active observation',
  'step-to-zero': 'idle past the cooldown: down to 1 first, then to zero',
  'cooldown-elapsed': 'idle past the cooldown: scaled to zero (no activator needed: the queue holds the work)',
  paused: 'paused (drover pause, or paused: true in the configuration): the load is not followed',
};

export interface FollowUpInput {
  plan: ScalePlan;
  desired: DesiredScale;
  /** Conditions the plan was made on, and after this reconcile. */
  before: TargetConditions;
  after: TargetConditions;
  write: ScaleOutcome;
  kind: 'kubernetes' | 'pool';
  activationTimeoutMs: number;
  /** Ready replicas now, the target's own scale after this reconcile, and when it was last written. */
  settle: { ready: number; requested: number; lastScaledAt: number | undefined };
  /** An http or queue source's poll period (`load.pollInterval`). */
  pollIntervalMs?: number;
  now: number;
}

export interface FollowUp {
  /** Epoch ms wanted (the sender rounds it up to a whole second when it sends the message). */
  at: number;
  why: string;
}

export function followUps(input: FollowUpInput): FollowUp[] {
  const { plan, desired, write, now } = input;
  const wants: FollowUp[] = plan.requeueAfterMs.map((ms) => ({
    // The seed waits a whole timeout after every reconcile while activating; anchored to when
    // the activation began, repeats collapse and the timeout is checked when it is due.
    at: plan.reason === 'activating' ? (input.before.active?.lastTransitionTime ?? now) + input.activationTimeoutMs + 1 : now + ms,
    why: REASONS[plan.reason],
  }));
  if (plan.reason === 'stable-window-elapsed') wants.push({ at: now + REENQUEUE_MS, why: 'marked inactive: look for the activator' });
  if (desired.kind === 'known' && desired.limitedBy && (write.kind === 'written' || write.kind === 'unchanged')) {
    wants.push({ at: nextGridPoint(now, RATE_STEP_MS), why: `${desired.limitedBy} allowed part of the step: take the next` });
  }
  // An activation given up without a sample is left to the timer and the next sample.
  const watchSince = plan.reason === 'activation-timed-out-without-samples' ? undefined : settlingSince(input);
  if (watchSince !== undefined) {
    const brisk = input.kind === 'kubernetes' && now - watchSince < SETTLE_POLL.kubernetesBriskForMs;
    const why = input.after.active?.status === 'Unknown' ? 'activating: look for a ready replica' : 'look again until the ready replicas match the scale';
    wants.push({ at: nextGridPoint(now, brisk ? SETTLE_POLL.kubernetesFirstMs : SETTLE_POLL.laterMs), why });
  }
  // On the interval's grid, so the chains of every reconcile (timer, push, re-enqueue) meet in
  // one message per instant instead of multiplying.
  if (input.pollIntervalMs !== undefined) wants.push({ at: nextGridPoint(now, input.pollIntervalMs), why: POLL_WHY });
  return wants;
}

/** Since when the target has been settling, if it still is and is still worth watching. */
function settlingSince({ after, settle, now }: FollowUpInput): number | undefined {
  if (after.active?.status === 'Unknown') return after.active.lastTransitionTime;
  const { ready, requested, lastScaledAt } = settle;
  if (ready === requested || lastScaledAt === undefined || now - lastScaledAt >= SETTLE_POLL.giveUpAfterMs) return undefined;
  return lastScaledAt;
}

export interface DescribeInput {
  plan: ScalePlan;
  desired: DesiredScale;
  /** What this reconcile learnt of the load, for the decision log ("pushed 25", "http 3"). */
  load: { note: string };
  write: ScaleOutcome;
  wake: WakeOutcome;
  /** The rule that last changed the replicas the load asked for. */
  boundBy?: BoundRule;
  /** What the adaptive policy's forecast made of this minute. */
  forecast?: ForecastLine;
  dryRun: boolean;
  probe: { ok: boolean; error?: string } | undefined;
  /** Why the reconcile ran: "timer", "forced", a re-enqueue's reason. */
  trigger: string;
}

/** What a plan rests on: its reason, the desired scale, and the rule that bound it. */
export function explainPlan({ plan, desired, boundBy }: { plan: ScalePlan; desired: DesiredScale; boundBy?: BoundRule | undefined }): string[] {
  return [REASONS[plan.reason], describeDesired(desired), ...(boundBy ? [`bound by ${boundBy}`] : [])];
}

export function describeTargetDecision({ plan, desired, load, write, wake, dryRun, probe, trigger, boundBy, forecast }: DescribeInput): Decision {
  const parts = [REASONS[plan.reason], `load: ${load.note}`, describeDesired(desired)];
  if (boundBy) parts.push(`bound by ${boundBy}`);
  if (forecast?.wouldRaise) parts.push(forecast.mode === 'floor' ? `forecast floor ${forecast.floor}` : `forecast floor ${forecast.floor} not applied (forecast: observe)`);
  if (probe) parts.push(probe.ok ? 'activator answered' : `activator: ${probe.error ?? 'no answer'}`);
  if (write.kind === 'written' && write.note) parts.push(write.note);
  if (wake.kind === 'woke') parts.push(`woke from zero in ${wake.latencyMs} ms`);
  if (wake.kind === 'abandoned') parts.push('the wake from zero was abandoned before a replica was ready');
  const reason = `${parts.join('; ')} (${trigger})`;
  switch (write.kind) {
    case 'written':
      return { decision: `scaled ${write.from} → ${write.to}`, reason };
    case 'would':
      return { decision: `would scale ${write.from} → ${write.to}`, reason };
    case 'failed':
      return { decision: `scaling ${write.from} → ${write.to} failed`, reason, error: write.error, transient: write.transient };
    case 'unread':
      return { decision: 'target unreadable', reason: `planned from the stored record; ${reason}`, error: write.error, transient: write.transient };
    case 'missing':
    case 'none':
    case 'unchanged':
      return { decision: steadyVerb(plan, write, dryRun), reason };
  }
}

function steadyVerb(plan: ScalePlan, write: ScaleOutcome, dryRun: boolean): string {
  const would = dryRun ? 'would be ' : '';
  if (plan.reason === 'stable-window-elapsed') return `${would}marked inactive`;
  if (plan.reason === 'adopted') return `${would}adopted`;
  if (plan.reason === 'metrics-not-collected' || plan.reason === 'activation-timed-out-without-samples') return 'no metrics';
  if (plan.reason === 'activating') return 'activating';
  if (plan.reason === 'grace-period-pending' || plan.reason === 'activator-not-in-path' || plan.reason === 'cooldown-pending') return 'waiting to scale to zero';
  if (plan.reason === 'idle-at-zero') return 'idle at zero';
  if (plan.reason === 'paused') return write.kind === 'unchanged' ? `paused at ${write.current}` : 'paused';
  return write.kind === 'unchanged' ? `steady at ${write.current}` : 'unchanged';
}

function describeDesired(desired: DesiredScale): string {
  if (desired.kind === 'unknown') return 'desired unknown (no sample in the window)';
  const limit = desired.limitedBy ? ` (${desired.fromLoad} from load, held by ${desired.limitedBy})` : '';
  const panic = desired.panic ? ', panicking' : '';
  return `desired ${desired.desired} from an average load of ${round(desired.average)}${limit}${panic}`;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
