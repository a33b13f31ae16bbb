/**
 * The policy stages of the pipeline (src/scaler/decide/pipeline.ts) that the single-source target
 * has: HPA `behavior`, Knative's `scaleDownDelay`, `activationScale` and `initialScale`, and the
 * bounds with schedules adjusting them. Each is a module of the scaler's stages over the target's
 * settings and record; what a stage keeps between reconciles is its own record field.
 */
import { applyBehavior, EMPTY_BEHAVIOR_STATE, recordScaleEvent, type BehaviorSettings, type BehaviorState } from './hpa-behavior.js';
import { fallbackReplicas } from '../recommend/sources.js';
import { sourcesView, type SourcesContext } from '../recommend/sources-view.js';
import { applyActivationScale, applyScaleDownDelay, isInitialized } from './knative.js';
import type { MaxEntry } from './max-window.js';
import { boundNamed, boundsNow, withinBounds } from './bounds-in-force.js';
import type { TargetRecord, TargetRecordPatch } from '../read/target-record.js';
import { effectiveMinScale } from './bounds.js';
import type { DesiredScale } from '../../load/decider.js';
import type { PolicyRule } from '../read/rule-names.js';
import { NO_POLICY, type PolicySettings } from '../read/policy-settings.js';
import { readJson } from '../read/record-json.js';

/**
 * What these stages read of the pipeline's context and state, and answer: the pipeline's own
 * types, narrowed here so that pipeline.ts can import the stages without an import cycle.
 */
type PipelineContext = SourcesContext;

interface Stage {
  readonly name: 'fallback' | 'behavior' | 'scaleDownDelay' | 'activation' | 'bounds';
  run(state: { replicas: number | undefined; desired?: DesiredScale }, ctx: PipelineContext): { replicas: number | undefined; boundBy?: PolicyRule; changes?: TargetRecordPatch };
}

const policyOf = (ctx: PipelineContext): PolicySettings => ctx.settings.policy ?? NO_POLICY;

const isBehaviorState = (v: unknown) => typeof v === 'object' && v !== null && Array.isArray((v as BehaviorState).upEvents) && Array.isArray((v as BehaviorState).downEvents);

function behaviorStateOf(record: TargetRecord | undefined): BehaviorState {
  return readJson(record?.behaviorHistory, EMPTY_BEHAVIOR_STATE, isBehaviorState);
}

function initializedNow(ctx: PipelineContext): boolean {
  return isInitialized(ctx.record?.initialScaleReached === true, ctx.observation.ready, policyOf(ctx).initialScale);
}

/** The bounds in force now: minScale raised to the initial scale until reached, then schedules. */
export function effectiveBounds(ctx: PipelineContext) {
  // An unreachable target (the upstream tables) has no lower bound, as effectiveMinScale says.
  const minScale = effectiveMinScale(ctx.settings.bounds);
  return boundsNow({ settings: policyOf(ctx), minScale, maxScale: ctx.settings.bounds.maxScale, now: ctx.now }, initializedNow(ctx));
}

/** The same, in the plan's terms (maxScale 0 = unbounded). */
export function planBounds(ctx: PipelineContext) {
  const b = effectiveBounds(ctx);
  return { ...ctx.settings.bounds, minScale: b.minScale, maxScale: b.maxScale === Infinity ? 0 : b.maxScale };
}

/**
 * KEDA's fallback: once every source has failed past the threshold its replicas stand for the
 * load, in both directions (a source past it among answering ones is only failing: missing in
 * the combination, and no scale-down; src/scaler/recommend/sources.ts). Each source's health is
 * kept here.
 */
export const fallback: Stage = {
  name: 'fallback',
  run: (state, ctx) => {
    const view = sourcesView(ctx);
    const changes = Object.keys(view.healthChanges).length === 0 ? {} : { changes: view.healthChanges };
    const settings = policyOf(ctx).fallback;
    if (view.allFallback && settings) return { replicas: fallbackReplicas(settings, ctx.observation.scale), boundBy: 'FallbackActive', ...changes };
    return { replicas: state.replicas, ...changes };
  },
};

/**
 * Behavior, after HPA's rule for a broken signal: while a source's read fails (and the
 * fallback is not engaged) the load may raise the target, never lower it.
 */
export const behavior: Stage = {
  name: 'behavior',
  run: (state, ctx) => {
    if (state.replicas !== undefined && sourcesView(ctx).failing && state.replicas < ctx.observation.scale) {
      return { replicas: ctx.observation.scale, boundBy: 'SourceFailing' };
    }
    const rules = policyOf(ctx).behavior;
    if (state.replicas === undefined || (!rules.scaleUp && !rules.scaleDown)) return { replicas: state.replicas };
    const desired = state.desired;
    const exact = desired?.kind === 'known' && desired.limitedBy === undefined && desired.desired === state.replicas ? desired.average / ctx.settings.desired.targetPerReplica : undefined;
    const bounds = effectiveBounds(ctx);
    const out = applyBehavior({
      raw: state.replicas,
      ...(exact === undefined ? {} : { exact }),
      current: ctx.observation.scale,
      minScale: bounds.minScale,
      maxScale: bounds.maxScale,
      behavior: rules,
      state: behaviorStateOf(ctx.record),
      now: ctx.now,
    });
    // HPA clamps to the bounds it was given: a schedule's floor or ceiling is named as such.
    const boundBy = boundNamed(out.boundBy, bounds);
    return { replicas: out.replicas, ...(boundBy && boundBy !== 'WithinTolerance' ? { boundBy } : {}), changes: { behaviorHistory: JSON.stringify(out.state) } };
  },
};

/** HPA counts a scale event once the write happened: the settle step calls this for a written scale. */
export function scaleEventFields(record: TargetRecord | undefined, changes: TargetRecordPatch, rules: BehaviorSettings, from: number, to: number, now: number): TargetRecordPatch {
  if (!rules.scaleUp && !rules.scaleDown) return {};
  const current = readJson(changes.behaviorHistory ?? record?.behaviorHistory, EMPTY_BEHAVIOR_STATE, isBehaviorState);
  return { behaviorHistory: JSON.stringify(recordScaleEvent(current, from, to, rules, now)) };
}

const isMaxWindow = (v: unknown) => Array.isArray(v) && v.every((e) => typeof (e as MaxEntry).index === 'number' && typeof (e as MaxEntry).value === 'number');

export const scaleDownDelay: Stage = {
  name: 'scaleDownDelay',
  run: (state, ctx) => {
    const delayMs = policyOf(ctx).scaleDownDelayMs;
    if (state.replicas === undefined || delayMs <= 0) return { replicas: state.replicas, ...(ctx.record?.delayWindow ? { changes: { delayWindow: undefined } } : {}) };
    const out = applyScaleDownDelay(state.replicas, readJson<MaxEntry[]>(ctx.record?.delayWindow, [], isMaxWindow), delayMs, ctx.now);
    return { replicas: out.replicas, ...(out.boundBy ? { boundBy: out.boundBy } : {}), changes: { delayWindow: JSON.stringify(out.window) } };
  },
};

/** Knative's activation scale on a decision above zero; the initial scale is a floor, applied with the bounds. */
export const activation: Stage = {
  name: 'activation',
  run: (state, ctx) => {
    const reached = policyOf(ctx).initialScale > 1 && ctx.record?.initialScaleReached !== true && initializedNow(ctx);
    const changes = reached ? { changes: { initialScaleReached: true } } : {};
    if (state.replicas === undefined || state.desired?.kind !== 'known') return { replicas: state.replicas, ...changes };
    const out = applyActivationScale(state.replicas, state.desired.fromLoad, policyOf(ctx).activationScale);
    return { replicas: out.replicas, ...(out.boundBy ? { boundBy: out.boundBy } : {}), ...changes };
  },
};

export const bounds: Stage = {
  name: 'bounds',
  run: (state, ctx) => {
    if (state.replicas === undefined) return { replicas: undefined };
    const out = withinBounds(state.replicas, effectiveBounds(ctx));
    return { replicas: out.replicas, ...(out.boundBy ? { boundBy: out.boundBy } : {}) };
  },
};
