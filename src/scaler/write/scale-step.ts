/**
 * One scale step of a target, the one path production, the upstream tables and `drover
 * replay` share, in three steps:
 *
 *   planTarget (pure; decide/plan-target.ts, the pipeline of decide/pipeline.ts)
 *   → executeTargetPlan (the synchronous probe when the plan asks, the fenced write, the
 *     watch of a wake; write/execute-target.ts, through ports)
 *   → settleTarget (pure; settle/settle.ts: wake and Active condition bookkeeping, follow-up
 *     re-enqueues, async probe offer, the targets row patch and the decision log entry).
 *
 * Everything it touches comes in as plain data and ports, with `now` given: the reconcile
 * passes the real target, probe and lease; a table or a replay passes in-memory ones and a
 * virtual clock. It does not store the row, send messages or offer the probe: the outcome says
 * what to store and send, and the caller does it under its lease.
 */
import type { Decision } from '../../job/decision.js';
import type { DesiredInput, DesiredScale } from '../../load/decider.js';
import type { WakeOutcome } from '../zero/activation-latency.js';
import type { TargetConditions } from '../read/conditions.js';
import type { TargetSettings } from '../decide/decide-target.js';
import type { FollowUp, ScaleOutcome } from '../decide/follow-ups.js';
import type { ScalePlan } from '../zero/scale-to-zero.js';
import type { TargetRecord, TargetRecordPatch } from '../read/target-record.js';
import type { BoundRule } from '../read/bound-rules.js';
import type { ProbeResult, TargetView } from '../decide/plan-target.js';
import { settleTarget } from '../settle/settle.js';
import type { SourceObservation } from '../recommend/sources-view.js';
import { executeTargetPlan, planWithProbe, type TargetExecutorPorts } from './execute-target.js';

export type { ProbeResult, TargetView } from '../decide/plan-target.js';
export { requestedAfter } from '../settle/settle.js';

export interface ScaleStepInput {
  record: TargetRecord | undefined;
  /** The target's load samples: a `SampleWindow`, an array, or anything with its `average`. */
  samples: DesiredInput['samples'];
  /** The source is a gauge (push): an empty window reads as its last value. */
  holdLatest: boolean;
  view: TargetView;
  settings: TargetSettings;
  /** What this reconcile learnt of the load, for the decision log. */
  loadNote: string;
  /** Set when the load source was read and gave no sample (for several sources: those that failed). */
  loadError?: string;
  /** A target with several sources: each one's samples and read. */
  sources?: readonly SourceObservation[];
  /** Why the reconcile ran: "timer", "forced", a re-enqueue's reason. */
  trigger: string;
  dryRun: boolean;
  now: number;
}

export type ScaleStepPorts = TargetExecutorPorts;

export interface ScaleStepOutcome {
  desired: DesiredScale;
  /** The conditions planned on, and after this reconcile. */
  before: TargetConditions;
  after: TargetConditions;
  adopted: boolean;
  plan: ScalePlan;
  /** The rule that last changed the replicas the load asked for. */
  boundBy: BoundRule | undefined;
  /** What the plan rests on. */
  lines: string[];
  probe: ProbeResult | undefined;
  write: ScaleOutcome;
  wake: WakeOutcome;
  /** Ready replicas after the step (watched, else observed). */
  got: number;
  followUps: FollowUp[];
  offerAsyncProbe: boolean;
  /** The targets row after this step, as a patch of the current row. */
  recordPatch(current: TargetRecord | undefined): TargetRecordPatch;
  decision: Decision;
}

export async function runScaleStep(input: ScaleStepInput, ports: ScaleStepPorts): Promise<ScaleStepOutcome> {
  const { now, settings } = input;
  const snapshot = { kind: ports.target.kind, record: input.record, view: input.view, samples: input.samples, holdLatest: input.holdLatest, dryRun: input.dryRun, ...(input.sources ? { sources: input.sources } : input.loadError !== undefined ? { loadFailed: true } : {}) };
  const { plan, probe } = await planWithProbe(snapshot, settings, now, ports.probeActivator);
  const executed = await executeTargetPlan(plan, input.view.observed, ports);
  const load = { note: input.loadNote, ...(input.loadError !== undefined ? { error: input.loadError } : {}) };
  const settled = settleTarget({ snapshot, plan, probe, executed, settings, load, trigger: input.trigger, now });
  const { desired, conditions: before, adopted, plan: scalePlan, boundBy } = plan.decided;
  return {
    desired,
    before,
    after: settled.after,
    adopted,
    plan: scalePlan,
    boundBy,
    lines: plan.lines,
    probe,
    write: executed.write,
    wake: settled.wake,
    got: settled.got,
    followUps: settled.followUps,
    offerAsyncProbe: settled.offerAsyncProbe,
    recordPatch: settled.recordPatch,
    decision: settled.decision,
  };
}
