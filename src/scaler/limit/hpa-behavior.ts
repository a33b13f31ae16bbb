/**
 * HPA v2 `behavior`, per direction: tolerance, then stabilization over the recent
 * recommendations, then the rate policies over the recent scale events, as the HPA controller
 * (`horizontal.go`) decides them. A direction without rules is unconstrained here (the Knative
 * rates upstream still apply): no tolerance, no window, no policy.
 *
 * State is the recommendation and scale-event history, kept in the target's record and bounded
 * (see `hpa-history.ts`); `recordScaleEvent` adds to it once a write has happened, as HPA does.
 */
import { bound, type Bound, type PolicyRule } from '../read/rule-names.js';
import { boundedEvents, boundedRecommendations, type Recommendation, type ScaleEvent } from './hpa-history.js';

export interface ScalingPolicy {
  type: 'Pods' | 'Percent';
  value: number;
  periodMs: number;
}

export interface ScalingRules {
  stabilizationWindowMs: number;
  policies: readonly ScalingPolicy[];
  selectPolicy: 'Max' | 'Min' | 'Disabled';
  tolerance: number;
}

export interface BehaviorSettings {
  scaleUp?: ScalingRules;
  scaleDown?: ScalingRules;
}

export interface BehaviorState {
  /** Absent until the first decision, which seeds it with the current scale (HPA). */
  recommendations?: Recommendation[];
  upEvents: ScaleEvent[];
  downEvents: ScaleEvent[];
}

export const EMPTY_BEHAVIOR_STATE: BehaviorState = Object.freeze({ upEvents: [], downEvents: [] }) as BehaviorState;

export interface BehaviorInput {
  /** The recommendation from the stages before, in whole replicas. */
  raw: number;
  /** The same unrounded, when known: the usage ratio HPA's tolerance reads is exact ÷ current. */
  exact?: number;
  current: number;
  minScale: number;
  /** Infinity when unbounded. */
  maxScale: number;
  behavior: BehaviorSettings;
  state: BehaviorState;
  now: number;
}

export interface BehaviorOutcome extends Bound {
  /** HPA's AbleToScale reason. */
  ableToScale: 'ScaleUpStabilized' | 'ScaleDownStabilized' | 'ReadyForNewScale';
  /** HPA's ScalingLimited reason. */
  scalingLimited: 'ScaleUpLimit' | 'ScaleDownLimit' | 'TooManyReplicas' | 'TooFewReplicas' | 'DesiredWithinRange';
  state: BehaviorState;
}

export function applyBehavior(input: BehaviorInput): BehaviorOutcome {
  const { current, behavior, now } = input;
  const tolerated = withinTolerance(input.exact, current, behavior);
  const raw = tolerated ? current : input.raw;
  const history = input.state.recommendations ?? [{ at: now, low: current, high: current }];
  const stable = stabilize(raw, current, behavior, history, now);
  const ableToScale = stable.replicas === raw ? 'ReadyForNewScale' : raw >= current ? 'ScaleUpStabilized' : 'ScaleDownStabilized';
  const limited = limitByPolicies(stable.replicas, input);
  const state = { ...input.state, recommendations: stable.history };
  const boundBy: PolicyRule | undefined =
    limited.reason !== 'DesiredWithinRange' ? limited.reason : ableToScale !== 'ReadyForNewScale' ? ableToScale : tolerated && input.raw !== current ? 'WithinTolerance' : undefined;
  return { ...bound(limited.replicas, boundBy), ableToScale, scalingLimited: limited.reason, state };
}

/** HPA keeps the current count while the usage ratio lies within the direction's tolerance, bounds included; never from zero. */
export function withinTolerance(exact: number | undefined, current: number, behavior: BehaviorSettings): boolean {
  if (exact === undefined || current === 0) return false;
  const ratio = exact / current;
  if (ratio > 1) return ratio - 1 <= (behavior.scaleUp?.tolerance ?? 0);
  if (ratio < 1) return 1 - ratio <= (behavior.scaleDown?.tolerance ?? 0);
  return true;
}

/**
 * The current count clamped into [lowest recommendation in the up window, highest in the down
 * window] (each including `raw`); `raw` is then stored over the last entry older than both
 * windows, or appended.
 */
export function stabilize(raw: number, current: number, behavior: BehaviorSettings, history: readonly Recommendation[], now: number) {
  const upCutoff = now - (behavior.scaleUp?.stabilizationWindowMs ?? 0);
  const downCutoff = now - (behavior.scaleDown?.stabilizationWindowMs ?? 0);
  let up = raw;
  let down = raw;
  let reuse = -1;
  history.forEach((rec, i) => {
    if (rec.at > upCutoff) up = Math.min(up, rec.low);
    if (rec.at > downCutoff) down = Math.max(down, rec.high);
    if (rec.at < upCutoff && rec.at < downCutoff) reuse = i;
  });
  const replicas = Math.min(Math.max(current, up), down);
  const entry: Recommendation = { at: now, low: raw, high: raw };
  const stored = reuse >= 0 ? history.map((rec, i) => (i === reuse ? entry : rec)) : [...history, entry];
  return { replicas, history: boundedRecommendations(stored) };
}

type Limited = { replicas: number; reason: BehaviorOutcome['scalingLimited'] };

function limitByPolicies(desired: number, input: BehaviorInput): Limited {
  const { current, minScale, maxScale, behavior, state } = input;
  if (desired > current) {
    const limit = behavior.scaleUp ? Math.max(scaleUpLimit(current, state, behavior.scaleUp, input.now), current) : Infinity;
    const [allowed, reason] = maxScale > limit ? [limit, 'ScaleUpLimit' as const] : [maxScale, 'TooManyReplicas' as const];
    if (desired > allowed) return { replicas: allowed, reason };
  } else if (desired < current) {
    const limit = behavior.scaleDown ? Math.min(scaleDownLimit(current, state, behavior.scaleDown, input.now), current) : -Infinity;
    const [allowed, reason] = minScale < limit ? [limit, 'ScaleDownLimit' as const] : [minScale, 'TooFewReplicas' as const];
    if (desired < allowed) return { replicas: allowed, reason };
  }
  return { replicas: desired, reason: 'DesiredWithinRange' };
}

/** The most replicas the up policies allow now: each from the count at its period's start. */
export function scaleUpLimit(current: number, state: Pick<BehaviorState, 'upEvents' | 'downEvents'>, rules: ScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const proposals = rules.policies.map((p) => {
    const start = periodStart(current, state, p.periodMs, now);
    return p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
  });
  return rules.selectPolicy === 'Min' ? Math.min(...proposals) : Math.max(...proposals);
}

/** The fewest replicas the down policies allow now. */
export function scaleDownLimit(current: number, state: Pick<BehaviorState, 'upEvents' | 'downEvents'>, rules: ScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const proposals = rules.policies.map((p) => {
    const start = periodStart(current, state, p.periodMs, now);
    return p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
  });
  return rules.selectPolicy === 'Min' ? Math.max(...proposals) : Math.min(...proposals);
}

function periodStart(current: number, state: Pick<BehaviorState, 'upEvents' | 'downEvents'>, periodMs: number, now: number): number {
  return current - changeWithin(state.upEvents, periodMs, now) + changeWithin(state.downEvents, periodMs, now);
}

/** Replicas changed by the events strictly newer than now − period. */
export function changeWithin(events: readonly ScaleEvent[], periodMs: number, now: number): number {
  return events.reduce((sum, e) => (e.at > now - periodMs ? sum + e.change : sum), 0);
}

/**
 * After a write from → to: the change is stored over the last event older than the direction's
 * longest policy period, or appended (HPA's storeScaleEvent).
 */
export function recordScaleEvent(state: BehaviorState, from: number, to: number, behavior: BehaviorSettings, now: number): BehaviorState {
  if (from === to) return state;
  const upward = to > from;
  const rules = upward ? behavior.scaleUp : behavior.scaleDown;
  if (!rules) return state;
  const longest = Math.max(0, ...rules.policies.map((p) => p.periodMs));
  const events = upward ? state.upEvents : state.downEvents;
  let reuse = -1;
  events.forEach((e, i) => {
    if (e.at < now - longest) reuse = i;
  });
  const entry: ScaleEvent = { at: now, change: Math.abs(to - from) };
  const stored = boundedEvents(reuse >= 0 ? events.map((e, i) => (i === reuse ? entry : e)) : [...events, entry]);
  return upward ? { ...state, upEvents: stored } : { ...state, downEvents: stored };
}
