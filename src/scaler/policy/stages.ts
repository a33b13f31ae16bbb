/**
 * The policy stages of a target's decision, in the order the pipeline runs them:
 *
 *   each source's reading and health → fallback → combine   (sources.ts)
 *   → stable/panic windows and Knative's rate limits        (load/decider.ts, on the demand)
 *   → a failing source blocks scale-down (HPA)
 *   → behavior: tolerance, stabilization, policies          (behavior.ts)
 *   → scaleDownDelay                                        (knative.ts)
 *   → activation (queue/push wake) and activation scale, initial scale as a floor
 *   → bounds, with schedules adjusting min and max          (schedules.ts)
 *   → cooldown to zero for queue/push targets               (activation.ts)
 *
 * Pure: plain data and `now` in, the desired scale (or none: no evidence), the rules that bound
 * it, the bounds in force and the next policy state out. Knative's activator rules for `http`
 * targets and pause come after, in the plan.
 */
import { decideDesiredScale, type DeciderSettings, type DesiredScale, type LoadWindow, type PanicState } from '../../load/decider.js';
import { applyActivation, applyCooldown } from './activation.js';
import { applyBehavior } from './behavior.js';
import { applyActivationScale, applyScaleDownDelay, initialScaleFloor, isInitialized } from './knative.js';
import type { Bound, PolicyRule } from './rules.js';
import { scheduledBounds } from './schedules.js';
import type { PolicySettings } from './settings.js';
import { anySourceActive, combinedWindow, nextFailures, sourcesDemand, type SourceReading } from './sources.js';
import type { PolicyState } from './state.js';

export interface SourceObservation {
  name: string;
  window: LoadWindow;
  /** A push source is a gauge: an empty window reads as its last value. */
  holdLatest: boolean;
  /** This reconcile's read: answered, failed, or none made (a push source between pushes). */
  read: 'ok' | 'failed' | 'none';
}

export interface PolicyInput {
  settings: PolicySettings;
  /** Knative's windows and rates; the demand is in replicas, so no target per replica. */
  decider: Omit<DeciderSettings, 'targetPerReplica'>;
  minScale: number;
  /** 0 = unbounded. */
  maxScale: number;
  sources: readonly SourceObservation[];
  /** The target's own scale (spec replicas, capacity). */
  current: number;
  ready: number;
  panic: PanicState | undefined;
  state: PolicyState;
  /** When Drover first saw the target. */
  since: number;
  now: number;
}

export interface PolicyOutcome {
  /** Undefined: no evidence, so the plan raises to the lower bound at most and never lowers. */
  desired: number | undefined;
  knative: DesiredScale;
  /** The rules that changed the number, in the order they did. */
  boundBy: PolicyRule[];
  /** The bounds in force now: schedules and the initial scale applied. */
  minScale: number;
  maxScale: number;
  active: boolean;
  state: PolicyState;
}

export function decidePolicy(input: PolicyInput): PolicyOutcome {
  const { settings, current, now } = input;
  const failures = Object.fromEntries(input.sources.map((s) => [s.name, nextFailures(input.state.failures[s.name] ?? 0, s.read)]));
  const rest = { combine: settings.combine, fallback: settings.fallback, current };
  const demandWindow = combinedWindow(
    input.sources.map((s) => ({ spec: specOf(settings, s.name), window: s.window, holdLatest: s.holdLatest, failures: failures[s.name] ?? 0 })),
    rest,
  );
  const readings: SourceReading[] = input.sources.map((s) => ({ name: s.name, value: s.window.average(now, input.decider.stableWindowMs, s.holdLatest), failures: failures[s.name] ?? 0 }));
  const demand = sourcesDemand({ ...rest, specs: settings.sources, readings });
  const active = anySourceActive({ ...rest, specs: settings.sources, readings });
  const knative = decideDesiredScale({ samples: demandWindow, holdLatest: false, readyReplicas: input.ready, panic: input.panic, settings: { ...input.decider, targetPerReplica: 1 }, now });

  const initialized = isInitialized(input.state.initialized, input.ready, settings.initialScale);
  const floor = initialScaleFloor(input.minScale, settings.initialScale, initialized);
  const bounds = scheduledBounds(floor, input.maxScale === 0 ? Infinity : input.maxScale, settings.schedules, now);
  const trail: PolicyRule[] = [];
  const step = (b: Bound): number => {
    if (b.boundBy) trail.push(b.boundBy);
    return b.replicas;
  };
  const next = { ...input.state, failures, initialized };
  if (knative.kind === 'unknown') {
    if (demand.fallback.length > 0) trail.push('FallbackActive');
    return { desired: undefined, knative, boundBy: trail, minScale: bounds.minScale, maxScale: bounds.maxScale, active, state: { ...next, ...(active ? { lastActiveAt: now } : {}) } };
  }
  if (demand.fallback.length > 0) trail.push('FallbackActive');

  let replicas = knative.desired;
  if (demand.kind === 'known' && demand.failing.length > 0 && replicas < current) replicas = step({ replicas: current, boundBy: 'SourceFailing' });
  const hasBehavior = settings.behavior.scaleUp !== undefined || settings.behavior.scaleDown !== undefined;
  let behaviorState = next.behavior;
  if (hasBehavior) {
    const exact = knative.limitedBy === undefined && demand.kind === 'known' && replicas === knative.desired ? demand.demand : undefined;
    const outcome = applyBehavior({ raw: replicas, ...(exact === undefined ? {} : { exact }), current, minScale: bounds.minScale, maxScale: bounds.maxScale, behavior: settings.behavior, state: behaviorState, now });
    behaviorState = outcome.state;
    replicas = step(outcome);
  }
  const delayed = applyScaleDownDelay(replicas, next.delay, settings.scaleDownDelayMs, now);
  replicas = step(delayed);
  if (settings.queueDriven) replicas = step(applyActivation({ replicas, current, active }));
  replicas = step(applyActivationScale(replicas, knative.fromLoad, settings.activationScale));
  replicas = step(withinBounds(replicas, bounds, floor > input.minScale));
  let lastActiveAt = active ? now : next.lastActiveAt;
  if (settings.queueDriven && bounds.minScale === 0) {
    const cooled = applyCooldown({ replicas, current, active, lastActiveAt: next.lastActiveAt, since: input.since, cooldownMs: settings.cooldownMs, now });
    lastActiveAt = cooled.lastActiveAt;
    replicas = step(cooled);
  }
  const state = { ...next, behavior: behaviorState, delay: delayed.window, ...(lastActiveAt === undefined ? {} : { lastActiveAt }) };
  return { desired: replicas, knative, boundBy: trail, minScale: bounds.minScale, maxScale: bounds.maxScale, active, state };
}

function withinBounds(replicas: number, bounds: ReturnType<typeof scheduledBounds>, initialFloor: boolean): Bound {
  if (replicas < bounds.minScale) return { replicas: bounds.minScale, boundBy: bounds.floorFrom ? 'ScheduledFloor' : initialFloor ? 'InitialScale' : 'TooFewReplicas' };
  if (replicas > bounds.maxScale) return { replicas: bounds.maxScale, boundBy: bounds.ceilingFrom ? 'ScheduledCeiling' : 'TooManyReplicas' };
  return { replicas };
}

function specOf(settings: PolicySettings, name: string) {
  const spec = settings.sources.find((s) => s.name === name);
  if (!spec) throw new Error(`no source named "${name}" in the target's settings`);
  return spec;
}
