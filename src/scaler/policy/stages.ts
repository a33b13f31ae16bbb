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
import { scheduledBounds, type ScheduledBounds } from './schedules.js';
import type { PolicySettings } from './settings.js';
import { anySourceActive, combinedWindow, nextFailures, sourcesDemand, type SourceReading, type SourcesDemand } from './sources.js';
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
  const read = readSources(input);
  const knative = decideDesiredScale({ samples: read.window, holdLatest: false, readyReplicas: input.ready, panic: input.panic, settings: { ...input.decider, targetPerReplica: 1 }, now });
  const initialized = isInitialized(input.state.initialized, input.ready, settings.initialScale);
  const bounds = boundsNow(input, initialized);
  const trail: PolicyRule[] = read.demand.fallback.length > 0 ? ['FallbackActive'] : [];
  const step = (b: Bound): number => {
    if (b.boundBy) trail.push(b.boundBy);
    return b.replicas;
  };
  const kept = { ...input.state, failures: read.failures, initialized, ...(read.active ? { lastActiveAt: now } : {}) };
  const outcome = { knative, boundBy: trail, minScale: bounds.minScale, maxScale: bounds.maxScale, active: read.active };
  if (knative.kind === 'unknown') return { ...outcome, desired: undefined, state: kept };

  let replicas = step(holdWhileFailing(knative.desired, read.demand, current));
  const behaved = behaviorStage(replicas, knative, read.demand, input, bounds);
  replicas = step(behaved);
  const delayed = applyScaleDownDelay(replicas, input.state.delay, settings.scaleDownDelayMs, now);
  replicas = step(delayed);
  if (settings.queueDriven) replicas = step(applyActivation({ replicas, current, active: read.active }));
  replicas = step(applyActivationScale(replicas, knative.fromLoad, settings.activationScale));
  replicas = step(withinBounds(replicas, bounds));
  if (settings.queueDriven && bounds.minScale === 0) {
    replicas = step(applyCooldown({ replicas, current, active: read.active, lastActiveAt: input.state.lastActiveAt, since: input.since, cooldownMs: settings.cooldownMs, now }));
  }
  return { ...outcome, desired: replicas, state: { ...kept, behavior: behaved.state, delay: delayed.window } };
}

/** Each source's failures counted, its window read, and the sources as one demand. */
export function readSources(input: PolicyInput) {
  const { settings, current, now } = input;
  const failures = Object.fromEntries(input.sources.map((s) => [s.name, nextFailures(input.state.failures[s.name] ?? 0, s.read)]));
  const rest = { combine: settings.combine, fallback: settings.fallback, current };
  const window = combinedWindow(
    input.sources.map((s) => ({ spec: specOf(settings, s.name), window: s.window, holdLatest: s.holdLatest, failures: failures[s.name] ?? 0 })),
    rest,
  );
  const readings: SourceReading[] = input.sources.map((s) => ({ name: s.name, value: s.window.average(now, input.decider.stableWindowMs, s.holdLatest), failures: failures[s.name] ?? 0 }));
  const demanded = { ...rest, specs: settings.sources, readings };
  return { failures, window, demand: sourcesDemand(demanded), active: anySourceActive(demanded) };
}

/** HPA: while a source fails (and no fallback stands in for it) the others may raise the target, never lower it. */
export function holdWhileFailing(replicas: number, demand: SourcesDemand, current: number): Bound {
  return demand.failing.length > 0 && replicas < current ? { replicas: current, boundBy: 'SourceFailing' } : { replicas };
}

/** The behavior stage; HPA's tolerance reads the exact demand only when the windows' rates left it as it was. */
function behaviorStage(replicas: number, knative: DesiredScale & { kind: 'known' }, demand: SourcesDemand, input: PolicyInput, bounds: ScheduledBounds) {
  const behavior = input.settings.behavior;
  if (!behavior.scaleUp && !behavior.scaleDown) return { replicas, state: input.state.behavior };
  const exact = knative.limitedBy === undefined && demand.kind === 'known' && replicas === knative.desired ? demand.demand : undefined;
  return applyBehavior({ raw: replicas, ...(exact === undefined ? {} : { exact }), current: input.current, minScale: bounds.minScale, maxScale: bounds.maxScale, behavior, state: input.state.behavior, now: input.now });
}

type Bounds = ScheduledBounds & { initialFloor: boolean };

/** minScale raised to the initial scale until reached, then schedules; maxScale 0 is unbounded. */
export function boundsNow(input: Pick<PolicyInput, 'settings' | 'minScale' | 'maxScale' | 'now'>, initialized: boolean): Bounds {
  const floor = initialScaleFloor(input.minScale, input.settings.initialScale, initialized);
  const scheduled = scheduledBounds(floor, input.maxScale === 0 ? Infinity : input.maxScale, input.settings.schedules, input.now);
  return { ...scheduled, initialFloor: floor > input.minScale };
}

export function withinBounds(replicas: number, bounds: Bounds): Bound {
  if (replicas < bounds.minScale) return { replicas: bounds.minScale, boundBy: boundNamed('TooFewReplicas', bounds) };
  if (replicas > bounds.maxScale) return { replicas: bounds.maxScale, boundBy: boundNamed('TooManyReplicas', bounds) };
  return { replicas };
}

/** minScale's and maxScale's rules named for the bound in force: a schedule's floor or ceiling, or the initial scale. */
export function boundNamed(rule: PolicyRule | undefined, bounds: Bounds): PolicyRule | undefined {
  if (rule === 'TooFewReplicas') return bounds.floorFrom ? 'ScheduledFloor' : bounds.initialFloor ? 'InitialScale' : rule;
  if (rule === 'TooManyReplicas') return bounds.ceilingFrom ? 'ScheduledCeiling' : rule;
  return rule;
}

function specOf(settings: PolicySettings, name: string) {
  const spec = settings.sources.find((s) => s.name === name);
  if (!spec) throw new Error(`no source named "${name}" in the target's settings`);
  return spec;
}
