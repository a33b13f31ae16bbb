/**
 * Shared pieces of the policy tables: a load window that answers fixed averages (a stable one
 * and, for the panic window, another), HPA rules with the tables' defaults, and a driver that
 * runs the policy stages step by step the way reconciles do: the target then runs what was
 * decided, and a write is recorded as a scale event.
 */
import type { LoadWindow, PanicState } from '../../src/load/decider.js';
import { recordScaleEvent, type ScalingRules } from '../../src/scaler/policy/behavior.js';
import { policySettings, type PolicySettings } from '../../src/scaler/policy/settings.js';
import { decidePolicy, type PolicyInput, type PolicyOutcome } from '../../src/scaler/policy/stages.js';
import { EMPTY_POLICY_STATE, type PolicyState } from '../../src/scaler/policy/state.js';
import { policySchema } from '../../src/config/policy-schema.js';

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);

/** Averages by window: `stable` for the stable window, `panic` for any shorter one; undefined: no sample. */
export function fixedWindow(stable: number | undefined, panic: number | undefined = stable, stableWindowMs = MINUTE): LoadWindow {
  return { average: (_now, windowMs) => (windowMs >= stableWindowMs ? stable : panic) };
}

export function rules(over: Partial<ScalingRules> = {}): ScalingRules {
  return { stabilizationWindowMs: 0, policies: [], selectPolicy: 'Max', tolerance: 0, ...over };
}

/** A target's policy from config, through the schema as a user writes it. */
export function settingsFrom(config: unknown): PolicySettings {
  return policySettings(policySchema.parse(config));
}

export interface Step {
  at: number;
  /** Each source's average (undefined: no sample), or 'failed' for a failed read. */
  values: Record<string, number | undefined | 'failed'>;
  /** Ready replicas, when they differ from the target's scale. */
  ready?: number;
  /** Panic window averages, when they differ from the stable ones. */
  panic?: Record<string, number>;
}

export interface Driver {
  current: number;
  state: PolicyState;
  panic: PanicState | undefined;
  run(step: Step): PolicyOutcome;
}

/**
 * Runs decidePolicy over steps: a decided scale is written (the target's scale becomes it, a
 * change is recorded as a scale event), none (no evidence) leaves the target as it is.
 */
export function driver(settings: PolicySettings, base: Omit<PolicyInput, 'settings' | 'sources' | 'current' | 'ready' | 'panic' | 'state' | 'now'>, current: number, state: PolicyState = EMPTY_POLICY_STATE): Driver {
  const d: Driver = {
    current,
    state,
    panic: undefined,
    run(step) {
      const sources = settings.sources.map((spec) => {
        const v = step.values[spec.name];
        const failed = v === 'failed';
        return {
          name: spec.name,
          window: fixedWindow(failed ? undefined : v, step.panic?.[spec.name] ?? (failed ? undefined : v), base.decider.stableWindowMs),
          holdLatest: false,
          read: failed ? ('failed' as const) : v === undefined ? ('none' as const) : ('ok' as const),
        };
      });
      const outcome = decidePolicy({ ...base, settings, sources, current: d.current, ready: step.ready ?? d.current, panic: d.panic, state: d.state, now: step.at });
      d.panic = outcome.knative.panic;
      d.state = outcome.state;
      if (outcome.desired !== undefined && outcome.desired !== d.current) {
        d.state = { ...d.state, behavior: recordScaleEvent(d.state.behavior, d.current, outcome.desired, settings.behavior, step.at) };
        d.current = outcome.desired;
      }
      return outcome;
    },
  };
  return d;
}

/** Knative's windows with no panic and rates that never bind, for rows about other stages. */
export const OPEN_DECIDER: PolicyInput['decider'] = {
  stableWindowMs: MINUTE,
  maxScaleUpRate: 1000,
  maxScaleDownRate: 1000,
  panic: { enabled: false, windowMs: 6 * SECOND, thresholdPercent: 200 },
};
