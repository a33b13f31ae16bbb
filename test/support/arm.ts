import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startArmSim, type ArmSim, type ArmSimOptions } from '../../sim/arm/index.js';
import { createRuntime, type Runtime, type RuntimeAdapters, type TableFactory } from '../../src/runtime/runtime.js';
import type { Clock } from '../../src/clock.js';
import { simulatedService, type ServiceClock } from '../../src/state/service-clock.js';
import { SUBSCRIPTION, azuriteStorage, tempDir, writeConfig } from './config.js';

/** The configuration sequence of a world's runtimes (src/config/sequence.ts), unless a test gives one. */
export const WORLD_CONFIG_SEQ = 1;

export interface ArmWorld {
  sim: ArmSim;
  dir: string;
  caFile: string;
  azure: { subscriptionId: string; credential: 'dev'; resourceManagerEndpoint: string; caFile: string };
  /** A runtime on a config with these pools (and extra sections); each call is a separate "instance". */
  runtime(
    config: Record<string, unknown>,
    options?: { clock?: Clock; serviceClock?: ServiceClock; adapters?: RuntimeAdapters; tables?: TableFactory; holder?: string; configSeq?: number },
  ): Promise<Runtime>;
}

export async function armWorld(options: ArmSimOptions = {}): Promise<ArmWorld> {
  const sim = await startArmSim({ subscriptionId: SUBSCRIPTION, provisionDelayMs: 50, deleteDelayMs: 50, ...options });
  const dir = tempDir();
  const caFile = path.join(dir, 'arm-ca.pem');
  await sim.writeCaFile(caFile);
  const azure = { subscriptionId: SUBSCRIPTION, credential: 'dev' as const, resourceManagerEndpoint: sim.url, caFile };
  const storage = azuriteStorage();
  return {
    sim,
    dir,
    caFile,
    azure,
    async runtime(config, opts = {}) {
      const file = writeConfig({ storage, azure, ...config }, tempDir());
      // A clock moved by hand moves the storage service's too (lease expiry is judged on that one).
      const serviceClock = opts.serviceClock ?? (opts.clock ? simulatedService(opts.clock) : undefined);
      // Instances of one deployment unless told otherwise: one configuration sequence, whenever each file was written.
      const rt = await createRuntime({ configFile: file, clock: opts.clock, serviceClock, adapters: opts.adapters, tables: opts.tables, configSeq: opts.configSeq ?? WORLD_CONFIG_SEQ });
      await rt.storage.ensure();
      return opts.holder ? { ...rt, holder: opts.holder } : rt;
    },
  };
}

/**
 * One ARM world for a test file: started before its first test, closed (and its folder removed)
 * after its last. The object is filled in by the `beforeAll`, so tests use it as they would the world.
 */
export function armWorldPerFile(options: ArmSimOptions = {}): ArmWorld {
  const world = {} as ArmWorld;
  beforeAll(async () => {
    Object.assign(world, await armWorld(options));
  });
  afterAll(async () => {
    await world.sim?.close();
    if (world.dir) rmSync(world.dir, { recursive: true, force: true });
  });
  return world;
}
