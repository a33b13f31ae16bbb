/** A simulator and the real compute adapter pointed at it (dev credential, CA file on disk). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ComputeAdapterOptions } from '../../../src/azure/compute-adapter.js';
import { createComputeScaleSetApi } from '../../../src/azure/compute-adapter.js';
import type { ScaleSetApi } from '../../../src/azure/scale-set-api.js';
import type { AutoscaleSettingsApi } from '../../../src/azure/autoscale-settings.js';
import type { ArmSim, ArmSimOptions } from '../../../sim/arm/index.js';
import { startArmSim } from '../../../sim/arm/index.js';

export interface SimHarness {
  sim: ArmSim;
  api: ScaleSetApi & AutoscaleSettingsApi;
  /** A second adapter on the same simulator (another Functions instance, say). */
  newApi(options?: ComputeAdapterOptions): Promise<ScaleSetApi & AutoscaleSettingsApi>;
  stop(): Promise<void>;
}

export async function startSimHarness(
  simOptions: ArmSimOptions = {},
  adapterOptions: ComputeAdapterOptions = {},
): Promise<SimHarness> {
  const sim = await startArmSim(simOptions);
  const dir = await mkdtemp(join(tmpdir(), 'drover-arm-sim-'));
  const caFile = join(dir, 'ca.pem');
  await sim.writeCaFile(caFile);
  const newApi = (options: ComputeAdapterOptions = adapterOptions) =>
    createComputeScaleSetApi(
      { subscriptionId: sim.subscriptionId, credential: 'dev', resourceManagerEndpoint: sim.url, caFile },
      { lroWaitMs: 1_000, lroPollIntervalMs: 10, ...options },
    );
  const api = await newApi();
  return {
    sim,
    api,
    newApi,
    stop: async () => {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
