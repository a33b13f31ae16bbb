/**
 * The scaling-policy pipeline: one ordered list of stages that turns a target's load into the
 * scale its plan applies, the same for every reconcile and every replay.
 *
 *   sources → combine → fallback → windows and rates → behavior → scaleDownDelay
 *   → activation and initial scale → bounds → scale to zero → pause
 *
 *  1. sources          each source's desired replicas, combined (max, min, sum, a formula) and
 *  2. combine          with each source's health: sources-view.ts, read by the stages after
 *  3. fallback         sources failing past their threshold: the fallback replicas
 *  4. windows          Knative's stable and panic windows and its maxScaleUp/DownRate
 *  4a. adaptive        `policy: adaptive`: headroom for the start-up delay, scale-down evidence,
 *                      the forecast's floor (`forecast.mode`)
 *  5. behavior         HPA v2 `behavior`: stabilization windows, then Pods/Percent policies
 *  6. scaleDownDelay   Knative: the highest scale of the delay window
 *  7. activation       activationScale on a wake, initialScale on the first scale
 *  8. bounds           minScale/maxScale, with schedules adjusting them
 *  9. scaleToZero      the activator, grace period and stable window rules: the plan; a
 *                      queue-driven target without an activator: activation and cooldown (zero/sleep.ts)
 * 10. pause            `drover pause` and `paused: true`
 *
 * A stage takes the replicas so far (undefined: no evidence, which no stage may turn into a
 * scale-down) and the context, and answers the replicas after it, the rule that bound them when
 * it changed them, and the record fields it keeps between reconciles. A stage with nothing
 * configured answers its input: `identity`. Stages from `scaleToZero` on also see the plan.
 *
 * This file is where a policy stage is wired in: replace an identity entry of PIPELINE with it.
 */
import { decideDesiredScale, type DesiredScale } from '../../load/decider.js';
import type { TargetConditions } from '../read/conditions.js';
import { planScaleWithin } from './plan-scale.js';
import type { ScalePlan, ScaleReason, SyncProbeResult } from '../zero/scale-to-zero.js';
import { panicOf, type TargetRecordPatch } from '../read/target-record.js';
import { RATE_RULES, type BoundRule } from '../read/bound-rules.js';
import { adaptiveStage } from '../recommend/adaptive-stage.js';
import type { ForecastLine } from '../../state/decisions.js';
import { activation, behavior, bounds, fallback, planBounds, scaleDownDelay } from '../limit/policy-stages.js';
import { pausedPlan, pauseOf } from './pause.js';
import { sleepPlan } from '../zero/sleep.js';
import { sourcesView, type SourcesContext } from '../recommend/sources-view.js';

/** After adopting a target, the next reconcile decides on it this soon. */
export const ADOPTION_REQUEUE_MS = 1_000;

/** Replicas so far; undefined while no load sample is known (no evidence). */
export type Replicas = number | undefined;

/** The sources' part (sources-view.ts: record, observation, samples, their health, settings, now) and the rest. */
export interface PipelineContext extends SourcesContext {
  /** The conditions the plan is made on: the stored ones, or the adoption's. */
  conditions: TargetConditions;
  /** First sight of the target: it is adopted as it runs and nothing is written. */
  adopted: boolean;
  /** The synchronous activator probe's answer, once a first run asked for it. */
  probe?: SyncProbeResult;
}

/** What the pipeline has decided so far. */
export interface PipelineState {
  replicas: Replicas;
  /** The rule that last changed the replicas. */
  boundBy?: BoundRule;
  /** What the load asked for after the windows and rates (set by `windows`). */
  desired?: DesiredScale;
  /** The scale plan (set by `scaleToZero`; later stages may change it). */
  plan?: ScalePlan;
  /** What the adaptive policy's forecast made of this minute (set by `adaptive` when its mode is not off). */
  forecast?: ForecastLine;
  /** Record fields the stages keep between reconciles. */
  changes: TargetRecordPatch;
}

export interface StageOutput {
  replicas: Replicas;
  /** Set when this stage changed the replicas (or the plan): the rule that did. */
  boundBy?: BoundRule;
  changes?: TargetRecordPatch;
  desired?: DesiredScale;
  plan?: ScalePlan;
  forecast?: ForecastLine;
  /** The stage needs the synchronous activator probe: run again with `probe` set. */
  needsProbe?: true;
}

export type StageName =
  | 'sources'
  | 'combine'
  | 'fallback'
  | 'windows'
  | 'adaptive'
  | 'behavior'
  | 'scaleDownDelay'
  | 'activation'
  | 'bounds'
  | 'scaleToZero'
  | 'pause';

export interface Stage {
  readonly name: StageName;
  run(state: Readonly<PipelineState>, ctx: PipelineContext): StageOutput;
}

export type PipelineResult =
  | { kind: 'probe' }
  | { kind: 'decided'; desired: DesiredScale; plan: ScalePlan; boundBy?: BoundRule; forecast?: ForecastLine; changes: TargetRecordPatch };

/** A stage with nothing configured: the replicas pass unchanged. */
export function identity(name: StageName): Stage {
  return { name, run: (state) => ({ replicas: state.replicas }) };
}

/** Each source's replicas over the stable window, combined (sources-view.ts). */
const sources: Stage = {
  name: 'sources',
  run: (_state, ctx) => ({ replicas: sourcesView(ctx).replicas }),
};

/** Knative's stable and panic windows and its rate limits, from the samples (one source today). */
const windows: Stage = {
  name: 'windows',
  run: (state, ctx) => {
    const { settings, now } = ctx;
    // An engaged fallback stands for the load: its replicas go through the rates as a demand.
    const fallback = state.boundBy === 'FallbackActive' && state.replicas !== undefined ? state.replicas : undefined;
    const combined = sourcesView(ctx).combined;
    const desired = decideDesiredScale({
      samples: fallback !== undefined ? { average: () => fallback } : (combined ?? ctx.samples),
      holdLatest: combined ? false : ctx.holdLatest,
      readyReplicas: ctx.observation.ready,
      panic: settings.desired.panic.enabled ? panicOf(ctx.record) : undefined,
      settings: fallback === undefined ? settings.desired : { ...settings.desired, targetPerReplica: 1 },
      now,
    });
    if (desired.kind === 'unknown') return { replicas: undefined, desired };
    const boundBy = desired.limitedBy ? RATE_RULES[desired.limitedBy] : desired.panic && desired.desired !== desired.fromLoad ? 'Panicking' : undefined;
    return { replicas: desired.desired, desired, ...(boundBy ? { boundBy } : {}) };
  },
};

/** Plans the rules of scale to zero apply, and the rule each names when it holds the scale. */
const PLAN_RULES: Partial<Record<ScaleReason, BoundRule>> = {
  'metrics-not-collected': 'NoEvidence',
  'activation-timed-out-without-samples': 'NoEvidence',
  'raised-to-lower-bound': 'TooFewReplicas',
  'scale-to-zero-disabled': 'TooFewReplicas',
  'stable-window-pending': 'ScaleToZeroPending',
  'grace-period-pending': 'ScaleToZeroPending',
  'activator-not-in-path': 'ScaleToZeroPending',
};

const scaleToZero: Stage = {
  name: 'scaleToZero',
  run: (state, ctx) => {
    if (ctx.adopted) return { replicas: undefined, plan: { kind: 'hold', reason: 'adopted', requeueAfterMs: [ADOPTION_REQUEUE_MS], offerAsyncProbe: false } };
    const slept = sleepPlan(state.replicas, ctx);
    if (slept) return slept;
    const step = planScaleWithin(planBounds(ctx), state.replicas, {
      conditions: ctx.conditions,
      settings: ctx.settings.scaleToZero,
      activatorSeenSince: ctx.record?.activatorSeenSince ?? null,
      ...(ctx.probe ? { probe: ctx.probe } : {}),
      currentScale: ctx.observation.scale,
      now: ctx.now,
    });
    if (step.kind === 'probe') return { replicas: state.replicas, needsProbe: true };
    const plan = step.plan;
    const replicas = plan.kind === 'hold' ? undefined : plan.scale;
    const rule = PLAN_RULES[plan.reason];
    return { replicas, plan, ...(rule ? { boundBy: rule } : {}) };
  },
};

const pause: Stage = {
  name: 'pause',
  run: (state, ctx) => {
    if (ctx.adopted || !state.plan) return { replicas: state.replicas };
    const { plan, bound } = pausedPlan(state.plan, pauseOf(ctx.record, ctx.settings.paused === true), ctx.observation.scale);
    if (!bound) return { replicas: state.replicas };
    return { replicas: plan.kind === 'hold' ? undefined : plan.scale, plan, boundBy: 'Paused' };
  },
};

/** The stages in order. Keep the order; wire a policy in by replacing its identity entry. */
export const PIPELINE: readonly Stage[] = [
  sources,
  identity('combine'),
  fallback,
  windows,
  adaptiveStage,
  behavior,
  scaleDownDelay,
  activation,
  bounds,
  scaleToZero,
  pause,
];

export function runPipeline(ctx: PipelineContext, stages: readonly Stage[] = PIPELINE): PipelineResult {
  let state: PipelineState = { replicas: undefined, changes: {} };
  for (const stage of stages) {
    const out = stage.run(state, ctx);
    if (out.needsProbe) return { kind: 'probe' };
    state = {
      replicas: out.replicas,
      ...((out.boundBy ?? state.boundBy) ? { boundBy: out.boundBy ?? state.boundBy } : {}),
      ...((out.desired ?? state.desired) ? { desired: out.desired ?? state.desired } : {}),
      ...((out.plan ?? state.plan) ? { plan: out.plan ?? state.plan } : {}),
      ...((out.forecast ?? state.forecast) ? { forecast: out.forecast ?? state.forecast } : {}),
      changes: { ...state.changes, ...out.changes },
    };
  }
  if (!state.desired || !state.plan) throw new Error('the scaling pipeline has no windows or scaleToZero stage');
  const { desired, plan, boundBy, forecast, changes } = state;
  return { kind: 'decided', desired, plan, ...(boundBy ? { boundBy } : {}), ...(forecast ? { forecast } : {}), changes };
}
