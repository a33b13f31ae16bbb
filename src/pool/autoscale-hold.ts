/**
 * One controller per scale set (pure): a pool writes nothing to a scale set that an enabled
 * Azure Monitor autoscale setting also sizes, or the two fight over its capacity and the
 * autoscale setting's scale-in lets Azure pick the VMs to remove.
 *
 * | the resource group's settings                                    | hold |
 * | ---------------------------------------------------------------- | ---- |
 * | read; one enabled, `targetResourceUri` = the scale set (any case) | yes, naming it |
 * | read; none enabled on it (disabled ones and other targets ignored) | no   |
 * | never read (the read failed, and no earlier read to go by)        | yes, saying why: no evidence, no write |
 */
import type { AutoscaleSettingRecord } from '../azure/autoscale-settings.js';

export type AutoscaleHold = { setting: string | undefined; reason: string };

/** What the autoscale watch has of a resource group: its settings, or why there are none. */
export type AutoscaleRead = { ok: true; settings: readonly AutoscaleSettingRecord[] } | { ok: false; error: string };

export function autoscaleHoldOf(read: AutoscaleRead, scaleSetId: string, resourceGroup: string): AutoscaleHold | undefined {
  if (!read.ok) {
    return {
      setting: undefined,
      reason: `the autoscale settings of resource group ${resourceGroup} could not be read (${read.error}); nothing is written to the scale set until they can be (Drover needs Microsoft.Insights/autoscalesettings/read there)`,
    };
  }
  const target = scaleSetId.toLowerCase();
  const enabled = read.settings.find((s) => s.enabled && s.targetResourceUri?.toLowerCase() === target);
  return enabled ? { setting: enabled.name, reason: heldBy(enabled.name) } : undefined;
}

export const heldBy = (setting: string) => `autoscale setting ${JSON.stringify(setting)} is enabled on this scale set; disable it or remove the target`;
