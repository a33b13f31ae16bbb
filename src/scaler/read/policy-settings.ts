/**
 * A target's policy as the stages take it, from its parsed configuration: plain data with the
 * formula parsed once and the knobs in the modules' own terms.
 */
import type { PolicyConfig } from '../../config/policy-schema.js';
import { DEFAULT_COOLDOWN_MS } from '../zero/cooldown.js';
import type { AdaptiveSettings } from '../recommend/adaptive.js';
import type { BehaviorSettings, ScalingRules } from '../limit/hpa-behavior.js';
import { parseFormula } from '../recommend/formula.js';
import { kindOf } from '../../load/registry.js';
import type { Schedule } from '../limit/schedules.js';
import type { Combine, FallbackSettings, SourceSpec } from '../recommend/sources.js';

export interface PolicySettings {
  sources: readonly SourceSpec[];
  combine: Combine;
  fallback?: FallbackSettings;
  /** Every source holds its work while the target sleeps (its kind's `holdsWork`): it may sleep and wake without an activator. */
  queueDriven: boolean;
  cooldownMs: number;
  behavior: BehaviorSettings;
  scaleDownDelayMs: number;
  initialScale: number;
  activationScale: number;
  schedules: readonly Schedule[];
  /** `policy: adaptive` (the default): its rules run after the windows; absent for `policy: knative`. */
  adaptive?: AdaptiveSettings;
}

/** A target without a `load` acts as one push source of target 1, as `load/collect.ts` reads it. */
const IMPLICIT: SourceSpec = { name: 'load', kind: 'push', targetPerReplica: 1, metricType: 'total', activationThreshold: 0 };

export function policySettings(config: Partial<PolicyConfig>): PolicySettings {
  const sources = config.load?.sources.map((s): SourceSpec => ({ name: s.name, kind: s.source, targetPerReplica: s.targetPerReplica, metricType: s.metricType, activationThreshold: s.activationThreshold })) ?? [IMPLICIT];
  const combine = config.load?.combine ?? 'max';
  const behavior: BehaviorSettings = {
    ...(config.behavior?.scaleUp ? { scaleUp: rulesOf(config.behavior.scaleUp) } : {}),
    ...(config.behavior?.scaleDown ? { scaleDown: rulesOf(config.behavior.scaleDown) } : {}),
  };
  return {
    sources,
    combine:
      typeof combine === 'string'
        ? { kind: combine }
        : { kind: 'formula', formula: parseFormula(combine.formula, sources.map((s) => s.name)), targetPerReplica: combine.targetPerReplica },
    ...(config.fallback ? { fallback: { ...config.fallback } } : {}),
    queueDriven: sources.every((s) => kindOf(s.kind).traits.holdsWork),
    cooldownMs: config.cooldown ?? DEFAULT_COOLDOWN_MS,
    behavior,
    scaleDownDelayMs: config.scaleDownDelay ?? 0,
    initialScale: config.initialScale ?? 1,
    activationScale: config.activationScale ?? 1,
    schedules: (config.schedules ?? []).map((s) => ({ cron: s.cron, durationMs: s.duration, timezone: s.timezone, ...pick(s) })),
  };
}

function rulesOf(rules: NonNullable<NonNullable<PolicyConfig['behavior']>['scaleUp']>): ScalingRules {
  return {
    stabilizationWindowMs: rules.stabilizationWindow,
    policies: rules.policies.map((p) => ({ type: p.type, value: p.value, periodMs: p.period })),
    selectPolicy: rules.selectPolicy,
    tolerance: rules.tolerance,
  };
}

function pick(s: { minScale?: number | undefined; maxScale?: number | undefined }) {
  return { ...(s.minScale === undefined ? {} : { minScale: s.minScale }), ...(s.maxScale === undefined ? {} : { maxScale: s.maxScale }) };
}

/** No policy keys: every stage passes its input through. */
export const NO_POLICY: PolicySettings = Object.freeze(policySettings({}));
