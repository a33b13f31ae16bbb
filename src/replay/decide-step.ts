/**
 * One target reconcile on the virtual clock: the only file of the replay that knows how the
 * scaler is put together. It runs the functions `reconcile/target.ts` runs, in the same order
 * and on the same data — desired scale from the window (rate limits, panic), planScale (with
 * the activator answering its probe), the patch and a scale set's write budget, the wake
 * bookkeeping, the Active condition and the follow-up re-enqueues — with the targets row kept
 * in memory instead of Table Storage and the workload answered by the simulator.
 *
 * What the reconcile keeps in its row between runs is `StepState`; the few lines that turn a
 * reconcile's outcome into that state follow `recordPatch` of the reconcile.
 */
import { readinessWatch as watchFor } from '../scaler/shell/readiness-watch.js';
import type { TargetConfig } from '../config/schema.js';
import { decideDesiredScale, type DesiredScale, type PanicState } from '../load/decider.js';
import type { SampleWindow } from '../load/sample-window.js';
import { computeActiveCondition } from '../scaler/decide/active-condition.js';
import { startsWake, trackWake, type WakeOutcome } from '../scaler/decide/activation.js';
import { checkWriteBudget, recordWrite } from '../scaler/decide/capacity-budget.js';
import type { TargetConditions } from '../scaler/decide/conditions.js';
import { adopt, ADOPTION_REQUEUE_MS, desiredOf } from '../scaler/decide/decide-target.js';
import { followUps, type WriteResult } from '../scaler/decide/follow-ups.js';
import { decidePatch, planScale, type ScaleInput } from '../scaler/decide/plan-scale.js';
import { plannedScale, type ScalePlan } from '../scaler/decide/scale-to-zero.js';

/** What the targets row carries from one reconcile to the next. */
export interface StepState {
  /** Undefined until the first reconcile, which initialises them from the workload. */
  conditions: TargetConditions | undefined;
  panic: PanicState | undefined;
  activatorSeenSince: number | null;
  wakeRequestedAt: number | undefined;
  capacityWrites: number[];
  lastScaledAt: number | undefined;
}

export const INITIAL_STATE: StepState = Object.freeze({
  conditions: undefined,
  panic: undefined,
  activatorSeenSince: null,
  wakeRequestedAt: undefined,
  capacityWrites: [],
  lastScaledAt: undefined,
});

export type TargetKind = 'kubernetes' | 'scaleSet';

export function targetKind(target: TargetConfig): TargetKind {
  const ref = target.scaleTargetRef as { kind?: string };
  return ref.kind === 'VirtualMachineScaleSet' ? 'scaleSet' : 'kubernetes';
}

/**
 * How long the reconcile that wakes a target watches for its first ready replica, and how
 * often it looks (as `watchReadiness` of the reconcile, without the lease's cap).
 */
export function readinessWatch(target: TargetConfig): { watchMs: number; pollMs: number } {
  return watchFor(targetKind(target), target.activationWatch);
}

export interface StepInput {
  target: TargetConfig;
  state: StepState;
  /** The target's samples; this reconcile's reading is added to them here. */
  samples: SampleWindow;
  /** This reconcile's reading of the source: a pushed value or what the source answers now. */
  reading: { value: number; pushed: boolean } | undefined;
  /** The workload as read at the start of the reconcile. */
  observed: { specReplicas: number; ready: number };
  /** The waking reconcile's watch: the last readiness it saw after writing `to` at `writtenAt`. */
  watch(writtenAt: number, to: number): { ready: number; at: number } | undefined;
  now: number;
}

export interface StepResult {
  state: StepState;
  desired: DesiredScale;
  plan: ScalePlan;
  /** The scale written to the workload, if any. */
  written: { from: number; to: number } | undefined;
  wake: WakeOutcome;
  /** Re-enqueues this reconcile asks for (epoch ms wanted, before the queue snaps them). */
  requeueAt: number[];
}

export function decideStep(input: StepInput): StepResult {
  const { target, state, samples, observed, now } = input;
  const gauge = (target.load?.source ?? 'push') === 'push';
  const targetPerReplica = target.load?.targetPerReplica ?? 1;
  const stableWindowMs = target.scaleToZero.stableWindow;

  if (input.reading) samples.add(now, input.reading.value, gauge && input.reading.pushed);
  samples.prune(now, stableWindowMs);

  const desired = decideDesiredScale({
    samples,
    holdLatest: gauge,
    readyReplicas: observed.ready,
    panic: target.panic.enabled ? state.panic : undefined,
    settings: {
      targetPerReplica,
      stableWindowMs,
      maxScaleUpRate: target.maxScaleUpRate,
      maxScaleDownRate: target.maxScaleDownRate,
      panic: { enabled: target.panic.enabled, windowMs: target.panic.window ?? stableWindowMs / 10, thresholdPercent: target.panic.threshold },
    },
    now,
  });

  const bounds = { minScale: target.minScale, maxScale: target.maxScale };
  // As the reconcile: a target seen for the first time is adopted as it runs, nothing written.
  const adopted = state.conditions === undefined;
  const conditions = state.conditions ?? adopt({ scale: observed.specReplicas, ready: observed.ready }, bounds, now);
  const scaleInput: ScaleInput = {
    desired: desiredOf(desired),
    bounds,
    conditions,
    settings: {
      enableScaleToZero: target.scaleToZero.enabled,
      stableWindowMs,
      gracePeriodMs: target.scaleToZero.gracePeriod,
      activationTimeoutMs: target.activationTimeout,
    },
    activatorSeenSince: state.activatorSeenSince,
    currentScale: observed.specReplicas,
    now,
  };
  // The activator is taken as present: the synchronous probe, when asked for, answers.
  const first: ReturnType<typeof planScale> = adopted
    ? { kind: 'plan', plan: { kind: 'hold', reason: 'adopted', requeueAfterMs: [ADOPTION_REQUEUE_MS], offerAsyncProbe: false } }
    : planScale(scaleInput);
  const probe = first.kind === 'probe' ? { ok: true } : undefined;
  const second = first.kind === 'probe' ? planScale({ ...scaleInput, probe }) : first;
  if (second.kind === 'probe') throw new Error('the scale decision asked for a second probe');
  const plan = second.plan;

  const kind = targetKind(target);
  const { write, capacityWrites } = applyPlan(plan, observed.specReplicas, kind, state.capacityWrites, now);
  const written = write.kind === 'written' ? { from: write.from, to: write.to } : undefined;

  const waking = written !== undefined && startsWake(state.wakeRequestedAt, observed.specReplicas, written.to);
  const watched = waking ? input.watch(now, written.to) : undefined;
  const got = watched?.ready ?? observed.ready;
  const wake = trackWake({
    pendingSince: state.wakeRequestedAt,
    scaleBefore: observed.specReplicas,
    applying: plan.kind === 'apply' ? plan.scale : undefined,
    observed: waking ? watched : { ready: observed.ready, at: now },
    now,
  });
  const next = adopted ? conditions : computeActiveCondition(conditions, { want: plannedScale(plan), got, bounds }, now);

  const requested = written ? written.to : observed.specReplicas;
  const lastScaledAt = written ? now : state.lastScaledAt;
  const wants = followUps({
    plan,
    desired,
    before: conditions,
    after: next,
    write,
    kind,
    activationTimeoutMs: target.activationTimeout,
    settle: { ready: got, requested, lastScaledAt },
    now,
  });

  return {
    state: {
      conditions: next,
      panic: target.panic.enabled ? desired.panic : undefined,
      activatorSeenSince: activatorSighting(state.activatorSeenSince, next, probe, now),
      wakeRequestedAt: wake.kind === 'waking' ? wake.since : undefined,
      capacityWrites,
      lastScaledAt,
    },
    desired,
    plan,
    written,
    wake,
    requeueAt: wants.map((w) => w.at),
  };
}

/** `applyScale` of the reconcile with a write that always succeeds. */
function applyPlan(plan: ScalePlan, current: number, kind: TargetKind, writes: number[], now: number): { write: WriteResult; capacityWrites: number[] } {
  if (plan.kind !== 'apply') return { write: { kind: 'none' }, capacityWrites: writes };
  const patch = decidePatch(plan.scale, current);
  if (!patch.patch) return { write: { kind: 'unchanged', current: patch.current }, capacityWrites: writes };
  if (kind === 'scaleSet') {
    const budget = checkWriteBudget(writes, now);
    if (!budget.ok) return { write: { kind: 'deferred', from: patch.from, to: patch.to, retryAt: budget.retryAt }, capacityWrites: writes };
    return { write: { kind: 'written', from: patch.from, to: patch.to }, capacityWrites: recordWrite(writes, now) };
  }
  return { write: { kind: 'written', from: patch.from, to: patch.to }, capacityWrites: writes };
}

/** As the reconcile's row patch: set by the first probe that finds the activator, forgotten once active. */
function activatorSighting(current: number | null, next: TargetConditions, probe: { ok: boolean } | undefined, now: number): number | null {
  if (next.active?.status === 'True') return null;
  if (probe) return probe.ok ? (current ?? now) : null;
  return current;
}
