/**
 * Pausing a target (`drover pause`, `paused: true` in the configuration), as KEDA's paused
 * annotations: the whole target (no scale written), one direction (`--scale-in`: nothing
 * lowered; `--scale-out`: nothing raised), or pinned at `--replicas N`. The pause is kept in the
 * target's row, so every instance obeys it at its next reconcile; the configuration's `paused`
 * wins over the row's pause (a pin, a direction) and over `drover resume`.
 */
import type { ScalePlan } from '../zero/scale-to-zero.js';
import type { TargetRecord } from '../read/target-record.js';

export type PauseMode = 'all' | 'scale-in' | 'scale-out';

export type Pause = { mode: PauseMode; replicas?: number };

/**
 * The pause in force: the configuration's `paused: true` (no scale written, whatever the row
 * says: a pin or one direction recorded before it must not write past it), else the row's
 * (`drover pause`).
 */
export function pauseOf(record: TargetRecord | undefined, configPaused: boolean): Pause | undefined {
  if (configPaused) return { mode: 'all' };
  const mode = record?.pausedMode;
  if (!mode) return undefined;
  return record.pausedReplicas === undefined ? { mode } : { mode, replicas: record.pausedReplicas };
}

/** The plan under a pause, and whether the pause changed it. */
export function pausedPlan(plan: ScalePlan, pause: Pause | undefined, currentScale: number): { plan: ScalePlan; bound: boolean } {
  if (!pause) return { plan, bound: false };
  const held: ScalePlan = { kind: 'hold', reason: 'paused', requeueAfterMs: [], offerAsyncProbe: false };
  if (pause.replicas !== undefined) {
    const pinned: ScalePlan = { kind: 'apply', scale: pause.replicas, reason: 'paused', requeueAfterMs: [], offerAsyncProbe: false };
    return { plan: pinned, bound: plan.kind !== 'apply' || plan.scale !== pause.replicas };
  }
  if (pause.mode === 'all') return { plan: held, bound: true };
  if (plan.kind === 'hold') return { plan, bound: false };
  const lowers = plan.scale < currentScale;
  const raises = plan.scale > currentScale;
  // Marking a target inactive (a reported 0) is the first step of scaling it in.
  if ((pause.mode === 'scale-in' && (lowers || plan.kind === 'report')) || (pause.mode === 'scale-out' && raises)) return { plan: held, bound: true };
  return { plan, bound: false };
}
