import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';
import { armWorld, type ArmWorld } from './arm.js';
import { azuriteStorage, tempDir, writeConfig } from './config.js';

/** Azurite, the ARM and Kubernetes simulators, and a config file that points at all three. */
export interface World {
  arm: ArmWorld;
  kube: KubernetesSim;
  kubeconfig: string;
  /** Writes a config (storage, azure and kubernetes filled in) and returns its path. */
  configFile(sections: Record<string, unknown>): string;
  close(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const arm = await armWorld();
  const kube = await startKubernetesSim({ readyDelayMs: 0 });
  const dir = tempDir();
  const kubeconfig = path.join(dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, kube.kubeconfigYaml());
  const storage = azuriteStorage();
  return {
    arm,
    kube,
    kubeconfig,
    configFile: (sections) => writeConfig({ storage, azure: arm.azure, kubernetes: { kubeconfig }, ...sections }, tempDir()),
    async close() {
      await Promise.all([arm.sim.close(), kube.close()]);
    },
  };
}
