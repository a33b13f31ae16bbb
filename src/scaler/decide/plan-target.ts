/**
 * A target's plan for one reconcile, pure: from its snapshot (the target as read or as last
 * stored, its record, its load samples, the synchronous probe's answer once asked for) and its
 * settings, at `now`, the scale plan, what the executor is to write, and the lines that explain
 * it. The reconcile, the scaler tables and `drover replay` all plan through here.
 *
 *   decideTarget (adoption, or the pipeline of src/scaler/decide/pipeline.ts)
 *   → the write: none | unchanged | would (dry run)
 *     | unread (planned from the stored record) | write (with what to save before it)
 *
 * Like decideTarget it answers `{ kind: 'probe' }` when the synchronous activator probe is
 * needed; the executor probes and plans again with `probe` set in the snapshot.
 */
import type { DesiredInput } from '../../load/decider.js';
import { startsWake } from '../zero/activation-latency.js';
import { decideTarget, type TargetDecided, type TargetSettings } from './decide-target.js';
import { explainPlan } from './follow-ups.js';
import { decidePatch, DEFAULT_REPLICAS } from './plan-scale.js';
import type { SyncProbeResult } from '../zero/scale-to-zero.js';
import type { TargetRecord, TargetRecordPatch } from '../read/target-record.js';
import type { ObservedTarget } from '../read/target-port.js';
import { clampRecordTimes, clampSamples } from '../read/future-times.js';
import type { SourceObservation } from '../recommend/sources-view.js';

export type ProbeResult = SyncProbeResult & { error?: string };

/** What the reconcile could see of the target: a fresh read, or its stored record when the read failed. */
export type TargetView =
  | { kind: 'read'; observed: ObservedTarget }
  /** `transient`: whether the failed read may pass by itself (`isTransient`). */
  | { kind: 'stored'; observed: ObservedTarget; error: string; transient: boolean };

export interface TargetSnapshot {
  kind: 'kubernetes' | 'pool';
  record: TargetRecord | undefined;
  view: TargetView;
  /** The target's load samples: a `SampleWindow`, an array, or anything with its `average`. */
  samples: DesiredInput['samples'];
  /** The source is a gauge (push): an empty window reads as its last value. */
  holdLatest: boolean;
  /** This reconcile's read of the load source failed (a source's health; its fallback). */
  loadFailed?: boolean;
  /** A target with several sources: each one's samples and read (`samples` is then the first's). */
  sources?: readonly SourceObservation[];
  /** The synchronous probe's answer, once a first plan asked for it. */
  probe?: ProbeResult;
  dryRun: boolean;
}

/** What the executor is to do with the target's scale. */
export type WriteIntent =
  /** The plan applies no scale (it holds, or reports one without writing it). */
  | { kind: 'none' }
  | { kind: 'unchanged'; current: number }
  | { kind: 'would'; from: number; to: number }
  /** The target could not be read: the plan was made from its stored record, nothing is written. */
  | { kind: 'unread'; error: string; transient: boolean }
  /** Write `to`; `save` must reach the row first (the start of a wake). */
  | { kind: 'write'; from: number; to: number; wakes: boolean; save?: TargetRecordPatch };

export interface TargetPlan {
  kind: 'plan';
  decided: TargetDecided;
  write: WriteIntent;
  /** What the plan rests on, for a dry run, the decision log and the replay. */
  lines: string[];
}

export function planTarget(snapshot: TargetSnapshot, settings: TargetSettings, now: number): { kind: 'probe' } | TargetPlan {
  const { view } = snapshot;
  const record = clampRecordTimes(snapshot.record, now);
  const { specReplicas, ready, startable } = view.observed;
  const observation = { scale: specReplicas ?? DEFAULT_REPLICAS, ready, ...(startable === undefined ? {} : { startable }) };
  const decided = decideTarget({
    record,
    samples: clampSamples(snapshot.samples, now),
    holdLatest: snapshot.holdLatest,
    ...(snapshot.loadFailed ? { loadFailed: true } : {}),
    ...(snapshot.sources ? { sources: snapshot.sources.map((s) => ({ ...s, window: clampSamples(s.window, now) })) } : {}),
    observation,
    settings,
    ...(snapshot.probe ? { probe: snapshot.probe } : {}),
    now,
  });
  if (decided.kind === 'probe') return decided;
  return { kind: 'plan', decided, write: writeIntent({ ...snapshot, record }, decided, now), lines: explainPlan(decided) };
}

function writeIntent(snapshot: TargetSnapshot, decided: TargetDecided, now: number): WriteIntent {
  const { view, record } = snapshot;
  if (view.kind === 'stored') return { kind: 'unread', error: view.error, transient: view.transient };
  const plan = decided.plan;
  if (plan.kind !== 'apply') return { kind: 'none' };
  const patch = decidePatch(plan.scale, view.observed.specReplicas);
  if (!patch.patch) return { kind: 'unchanged', current: patch.current };
  const { from, to } = patch;
  if (snapshot.dryRun) return { kind: 'would', from, to };
  const wakes = startsWake(record?.wakeRequestedAt, from, to);
  return { kind: 'write', from, to, wakes, ...(wakes ? { save: { wakeRequestedAt: now } } : {}) };
}
