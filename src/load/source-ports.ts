/**
 * The ports a target's source readers get from the runtime (load/source-kind.ts SourcePorts):
 * the identity, the app settings, the azure section and the target's own reference.
 */
import type { TargetConfig } from '../config/schema.js';
import type { TokenCredential } from '@azure/core-auth';
import type { DroverConfig } from '../config/schema.js';
import type { Clock } from '../clock.js';
import type { PodMetricsApi } from './resource-source.js';
import type { SourcePorts, SourceTargetRef } from './source-kind.js';
import type { KubernetesScaleTargetRef } from '../kubernetes/scale-target-ref.js';

/** What the ports are made from, handed down from the composition root. */
export interface SourcePortDeps {
  readonly config: DroverConfig;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  azureCredential(): TokenCredential;
  podMetrics(): Promise<PodMetricsApi>;
}

export function sourcePorts(deps: SourcePortDeps, target: TargetConfig): SourcePorts {
  const azure = deps.config.azure;
  return {
    credential: () => deps.azureCredential(),
    setting: (name) => deps.env[name], // contract: a setting the configuration names (a source's …Setting key)
    azure: { subscriptionId: azure?.subscriptionId, resourceManagerEndpoint: azure?.resourceManagerEndpoint ?? 'https://management.azure.com' },
    target: { name: target.name, ref: targetRefOf(deps.config, target) },
    ...(deps.config.kubernetes ? { kubernetes: () => deps.podMetrics() } : {}),
    now: () => deps.clock.now(),
  };
}

export function targetRefOf(config: Pick<DroverConfig, 'azure' | 'pools'>, target: TargetConfig): SourceTargetRef {
  const ref = target.scaleTargetRef as { kind?: string; name: string };
  if (ref.kind === 'Pool') {
    const pool = config.pools.find((p) => p.name === ref.name);
    return { kind: 'pool', scaleSet: { subscriptionId: config.azure?.subscriptionId, resourceGroup: pool?.scaleSet.resourceGroup ?? '', name: pool?.scaleSet.name ?? ref.name } };
  }
  return { kind: 'kubernetes', ref: target.scaleTargetRef as unknown as KubernetesScaleTargetRef };
}
