/**
 * Runs one scale step against a target through narrow ports: the synchronous probe when the
 * decision asks for it, then a read of the target and a patch only when the plan applies a scale
 * that differs from the target's own. Queueing is left to the caller: the outcome carries the
 * plan, whose re-enqueues and async probe offer hold even when the read or the patch failed.
 */
import { decidePatch, planWithProbe, type PatchDecision, type ScaleInput } from './scale.js';
import type { ScalePlan, SyncProbeResult } from './scale-to-zero.js';

export interface ScaleTargetPorts {
  /** One synchronous activator probe; reports failure as `{ ok: false }` rather than throwing. */
  probeActivator(): Promise<SyncProbeResult>;
  /** The target's own replica count; undefined when it sets none. Throws on a failed read. */
  readScale(): Promise<{ specReplicas?: number }>;
  /** Sets the target's replica count. Throws on failure. */
  patchScale(replicas: number): Promise<void>;
}

interface Attempt {
  plan: ScalePlan;
  /** Whether the synchronous probe ran. */
  probed: boolean;
}

export type ScaleOutcome =
  | (Attempt & { ok: true; /** null when the plan does not apply a scale. */ patch: PatchDecision | null })
  | (Attempt & { ok: false; error: unknown });

export async function scaleTarget(
  input: Omit<ScaleInput, 'probe'>,
  ports: ScaleTargetPorts,
): Promise<ScaleOutcome> {
  const planned = await planWithProbe(input, () => ports.probeActivator());
  const { plan } = planned;
  const probed = planned.probe !== undefined;
  if (!plan.apply) return { ok: true, plan, probed, patch: null };
  try {
    const { specReplicas } = await ports.readScale();
    const patch = decidePatch(plan.scale, specReplicas);
    if (patch.patch) await ports.patchScale(patch.to);
    return { ok: true, plan, probed, patch };
  } catch (error) {
    return { ok: false, plan, probed, error };
  }
}
