/**
 * A target driven through the production scale step (runScaleStep: planTarget, the executor
 * with in-memory ports, settleTarget), reconcile by reconcile, for the policy tables. The
 * target's policy comes from configuration as a user writes it (parseConfig), the targets row
 * is carried from step to step as the table would keep it, and the workload runs what was
 * written: all of it ready unless a step says otherwise.
 */
import { parseConfig } from '../../src/config/load.js';
import { isSingle, loadSources } from '../../src/load/sources.js';
import { markActive, markInactive, type TargetConditions } from '../../src/scaler/read/conditions.js';
import { targetSettings, type TargetSettings } from '../../src/scaler/read/target-settings.js';
import { applyRecordPatch, conditionFields, type TargetRecord } from '../../src/scaler/read/target-record.js';
import type { SourceObservation } from '../../src/scaler/recommend/sources-view.js';
import { runScaleStep, type ScaleStepOutcome } from '../../src/scaler/write/scale-step.js';

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
/** On a whole minute, so Knative's 2 s delay buckets start at T0. */
export const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);

/** The settings of one target configured as `target` says (name, scaleTargetRef and the kubeconfig given). */
export function settingsOf(target: Record<string, unknown>): TargetSettings {
  const config = parseConfig({
    kubernetes: { kubeconfig: '/nonexistent' },
    // The ported upstream tables are Knative's, HPA's and KEDA's rules: the seed's policy.
    targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, policy: 'knative', ...target }],
  });
  const parsed = config.targets[0]!;
  // A step of one raw window reads it with its source's target; several sources come combined, in replicas.
  return targetSettings(parsed, parsed.load === undefined || isSingle(parsed.load) ? (loadSources(parsed.load)[0]?.source.targetPerReplica ?? 1) : 1);
}

/** A push source of this target per replica: each step gives its window averages. */
export const push = (targetPerReplica: number) => ({ load: { source: 'push', targetPerReplica } });

/** An activator in front, so a target may go to zero (the in-memory probe finds it). */
export const ACTIVATOR = { activator: { probeUrl: 'http://web.example/healthz' } };

/** A target at zero, inactive this long. */
export const inactiveFor = (ms: number): TargetConditions => markInactive({}, T0 - ms);

export interface Step {
  at: number;
  /** The stable window's average; undefined: no sample in it. */
  load: number | undefined;
  /** The panic window's average, when it differs from the stable one. */
  panic?: number;
  /** Ready replicas, when not all of the target's scale is ready. */
  ready?: number;
  /** A pool's deallocated VMs, which a raise would start (its warm buffer). */
  startable?: number;
  /** This reconcile's read of the source failed (its health, its fallback). */
  failed?: boolean;
  /** A target with several sources: each one's average by name, or 'failed' (then `load` is not read). */
  sources?: Record<string, number | 'failed'>;
}

/** Each of several sources as the reconcile hands it to the plan: its window and this read. */
function observations(values: Record<string, number | 'failed'>): SourceObservation[] {
  return Object.entries(values).map(([name, v]) => ({
    name,
    window: { average: () => (v === 'failed' ? undefined : v) },
    holdLatest: false,
    read: v === 'failed' ? ('failed' as const) : ('ok' as const),
  }));
}

export interface Stepped {
  /** The scale the plan decided (applied or reported); undefined: it held, nothing decided. */
  scale: number | undefined;
  boundBy: string | undefined;
  /** The write to the target, if one was made. */
  written: [from: number, to: number] | undefined;
  outcome: ScaleStepOutcome;
}

export interface PlanDriver {
  current: number;
  record: TargetRecord | undefined;
  step(step: Step): Promise<Stepped>;
}

export interface Start {
  /** The target's scale (spec replicas) before the first step. */
  current: number;
  /** The stored Active condition; default: active for ten minutes (no adoption, no activation). */
  conditions?: TargetConditions;
  /** Fields the row holds already: a history, failures, the delay window. */
  record?: Partial<TargetRecord>;
}

export function planDriver(settings: TargetSettings, start: Start): PlanDriver {
  const conditions = start.conditions ?? markActive({}, T0 - 10 * MINUTE);
  const d: PlanDriver = {
    current: start.current,
    record: { ...(conditionFields(conditions) as TargetRecord), revision: 1, ...start.record },
    async step(step) {
      const stableMs = settings.desired.stableWindowMs;
      const outcome = await runScaleStep(
        {
          record: d.record,
          samples: { average: (_now: number, windowMs: number) => (windowMs >= stableMs ? step.load : (step.panic ?? step.load)) },
          holdLatest: false,
          view: { kind: 'read', observed: { specReplicas: d.current, ready: step.ready ?? d.current, ...(step.startable === undefined ? {} : { startable: step.startable }), resourceVersion: '1' } },
          settings,
          loadNote: 'table',
          ...(step.failed || Object.values(step.sources ?? {}).includes('failed') ? { loadError: 'the source answered 503' } : {}),
          ...(step.sources ? { sources: observations(step.sources) } : {}),
          trigger: 'test',
          dryRun: false,
          now: step.at,
        },
        { target: { kind: 'kubernetes', write: () => Promise.resolve(undefined) }, probeActivator: () => Promise.resolve({ ok: true }), checkLease: () => Promise.resolve() },
      );
      d.record = applyRecordPatch(d.record, outcome.recordPatch(d.record));
      const write = outcome.write;
      if (write.kind === 'written') d.current = write.to;
      return {
        scale: outcome.plan.kind === 'hold' ? undefined : outcome.plan.scale,
        boundBy: outcome.boundBy,
        written: write.kind === 'written' ? [write.from, write.to] : undefined,
        outcome,
      };
    },
  };
  return d;
}

/** One reconcile of a target at `current` with the row holding `record`. */
export async function planOnce(settings: TargetSettings, start: Start, step: Step): Promise<Stepped & { record: TargetRecord }> {
  const d = planDriver(settings, start);
  const out = await d.step(step);
  return { ...out, record: d.record! };
}
