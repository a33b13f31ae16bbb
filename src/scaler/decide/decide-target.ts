/**
 * A target's whole decision for one reconcile, from plain data: its stored record, its load
 * samples, what was observed of it and its settings, at `now`.
 *
 *   first sight     → adopt it as it runs (no scale is decided): active once its ready
 *                     replicas reach max(minScale, 1), inactive at zero, activating in between
 *   otherwise       → the scaling-policy pipeline (src/scaler/decide/pipeline.ts): the desired
 *                     scale from the samples, windows and rates, bounds, scale to zero (which
 *                     asks for a synchronous probe)
 *
 * Like planScaleWithin it answers `{ kind: 'probe' }` when the synchronous activator probe is needed;
 * the caller probes and calls again with `probe` set.
 */
import type { DesiredInput, DesiredScale } from '../../load/decider.js';
import type { Observation, TargetSettings } from '../read/target-settings.js';
import type { BoundRule } from '../read/bound-rules.js';
import { runPipeline } from './pipeline.js';
import type { SourceObservation } from '../recommend/sources-view.js';
import type { ForecastLine } from '../../state/decisions.js';
import { effectiveMinScale, type ScaleBounds } from '../limit/bounds.js';
import {
  ADOPTED_ACTIVATING,
  ADOPTED_ACTIVE,
  ADOPTED_AT_ZERO,
  markActivating,
  markActive,
  markInactive,
  type TargetConditions,
} from '../read/conditions.js';
import type { Desired } from './plan-scale.js';
import type { ScalePlan, SyncProbeResult } from '../zero/scale-to-zero.js';
import { conditionsOf, type TargetRecord, type TargetRecordPatch } from '../read/target-record.js';

export { ADOPTION_REQUEUE_MS } from './pipeline.js';

export { targetSettings, type Observation, type TargetSettings } from '../read/target-settings.js';

export interface TargetDecisionInput {
  record: TargetRecord | undefined;
  /** The target's load samples: a `SampleWindow`, an array, or anything with its `average`. */
  samples: DesiredInput['samples'];
  /** The source is a gauge (push): an empty window reads as its last value. */
  holdLatest: boolean;
  /** This reconcile's read of the load source failed (a source's health; its fallback). */
  loadFailed?: boolean;
  /** A target with several sources: each one's samples and read. */
  sources?: readonly SourceObservation[];
  observation: Observation;
  settings: TargetSettings;
  /** The synchronous probe's answer, once a first call asked for it. */
  probe?: SyncProbeResult;
  now: number;
}

export interface TargetDecided {
  kind: 'decided';
  desired: DesiredScale;
  /** The conditions the plan was made on: the stored ones, or the adoption's. */
  conditions: TargetConditions;
  /** This reconcile adopted the target (first sight): nothing is written to it. */
  adopted: boolean;
  plan: ScalePlan;
  /** The rule that last changed the replicas the load asked for. */
  boundBy?: BoundRule;
  /** What the adaptive policy's forecast made of this minute, when its mode is not off. */
  forecast?: ForecastLine;
  /** Record fields the pipeline's stages keep between reconciles. */
  changes: TargetRecordPatch;
}

export type TargetDecision = { kind: 'probe' } | TargetDecided;

export function decideTarget(input: TargetDecisionInput): TargetDecision {
  const { record, observation, settings, now } = input;
  const adopted = record?.activeStatus === undefined;
  const conditions = adopted ? adopt(observation, settings.bounds, now) : conditionsOf(record);
  const result = runPipeline({
    record,
    conditions,
    adopted,
    observation,
    samples: input.samples,
    holdLatest: input.holdLatest,
    ...(input.loadFailed ? { loadFailed: true } : {}),
    ...(input.sources ? { sources: input.sources } : {}),
    settings,
    ...(input.probe ? { probe: input.probe } : {}),
    now,
  });
  if (result.kind === 'probe') return result;
  const { desired, plan, boundBy, forecast, changes } = result;
  return { kind: 'decided', desired, conditions, adopted, plan, ...(boundBy ? { boundBy } : {}), ...(forecast ? { forecast } : {}), changes };
}

export function desiredOf(desired: DesiredScale): Desired {
  return desired.kind === 'known' ? { kind: 'known', scale: desired.desired } : { kind: 'unknown' };
}

/**
 * A running workload is taken over as it is: Drover's first look decides its Active condition
 * from what is ready, never a scale.
 */
export function adopt(observation: Observation, bounds: ScaleBounds, now: number): TargetConditions {
  if (observation.ready >= Math.max(effectiveMinScale(bounds), 1)) return markActive({}, now, ADOPTED_ACTIVE);
  if (observation.scale === 0 && observation.ready === 0) return markInactive({}, now, ADOPTED_AT_ZERO);
  return markActivating({}, now, ADOPTED_ACTIVATING);
}
