/**
 * The ports a target's source readers get from the runtime (load/source-kind.ts SourcePorts):
 * the identity, the app settings, the azure section and the target's own reference.
 */
import type { TargetConfig } from '../config/schema.js';
import type { Runtime } from '../runtime/runtime.js';
import type { SourcePorts, SourceTargetRef } from './source-kind.js';
import type { KubernetesScaleTargetRef } from '../kubernetes/scale-target-ref.js';

export function sourcePorts(rt: Pick<Runtime, 'azureCredential' | 'env' | 'config' | 'clock' | 'podMetrics'>, target: TargetConfig): SourcePorts {
  const azure = rt.config.azure;
  return {
    credential: () => rt.azureCredential(),
    setting: (name) => rt.env[name], // contract: a setting the configuration names (a source's …Setting key)
    azure: { subscriptionId: azure?.subscriptionId, resourceManagerEndpoint: azure?.resourceManagerEndpoint ?? 'https://management.azure.com' },
    target: { name: target.name, ref: targetRefOf(rt.config, target) },
    ...(rt.config.kubernetes ? { kubernetes: () => rt.podMetrics() } : {}),
    now: () => rt.clock.now(),
  };
}

export function targetRefOf(config: Pick<Runtime['config'], 'azure' | 'pools'>, target: TargetConfig): SourceTargetRef {
  const ref = target.scaleTargetRef as { kind?: string; name: string };
  if (ref.kind === 'Pool') {
    const pool = config.pools.find((p) => p.name === ref.name);
    return { kind: 'pool', scaleSet: { subscriptionId: config.azure?.subscriptionId, resourceGroup: pool?.scaleSet.resourceGroup ?? '', name: pool?.scaleSet.name ?? ref.name } };
  }
  return { kind: 'kubernetes', ref: target.scaleTargetRef as unknown as KubernetesScaleTargetRef };
}
