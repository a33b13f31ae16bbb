/**
 * The composition root: one place builds the config, storage, queues, clock and adapters a
 * handler needs. Handlers ask `getRuntime()`; it is built once per process (per config file)
 * and reused by later invocations on a warm instance. Nothing here runs at import time.
 */
import os from 'node:os';
import { DefaultAzureCredential, ManagedIdentityCredential } from '@azure/identity';
import type { TokenCredential } from '@azure/core-auth';
import { systemClock, type Clock } from '../clock.js';
import { loadConfig, resolveConfigFile } from '../config/load.js';
import type { DroverConfig } from '../config/schema.js';
import type { Rate } from '../config/rate.js';
import { createStorage, resolveStorageLocation, type Storage } from '../state/storage.js';
import { EntityTable } from '../state/entity-table.js';
import { Leases } from '../state/leases.js';
import { SharedLimiter } from '../state/limiter.js';
import { DecisionLog } from '../state/decisions.js';
import { createQueueSender, type QueueSender } from '../queue/sender.js';

export interface Runtime {
  readonly config: DroverConfig;
  readonly configFile: string;
  readonly clock: Clock;
  readonly storage: Storage;
  readonly leases: Leases;
  readonly decisions: DecisionLog;
  readonly queues: QueueSender;
  /** Who holds leases taken by this process (instance id and process id). */
  readonly holder: string;
  /** Table helpers by name. */
  table(name: Parameters<Storage['table']>[0]): EntityTable;
  limiter(name: string, rate: Rate): SharedLimiter;
  /** Azure credential for ARM and identity-based storage, built on first use. */
  azureCredential(): TokenCredential;
  /** Environment the runtime was built from (app settings). */
  readonly env: NodeJS.ProcessEnv;
}

export interface RuntimeOptions {
  configFile?: string;
  config?: DroverConfig;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const env = options.env ?? process.env;
  const configFile = resolveConfigFile(options.configFile, env);
  const config = options.config ?? (await loadConfig(configFile));
  const clock = options.clock ?? systemClock;
  let credential: TokenCredential | undefined;
  const azureCredential = () => (credential ??= buildCredential(config, env));
  const storage = createStorage(resolveStorageLocation(config.storage, env), config.storage?.prefix ?? 'drover', azureCredential);
  const tables = new Map<string, EntityTable>();
  const table = (name: Parameters<Storage['table']>[0]) => {
    let t = tables.get(name);
    if (!t) tables.set(name, (t = new EntityTable(storage.table(name))));
    return t;
  };
  const holder = `${env.WEBSITE_INSTANCE_ID?.slice(0, 12) ?? os.hostname()}:${process.pid}`;
  return {
    config,
    configFile,
    clock,
    storage,
    env,
    holder,
    table,
    leases: new Leases(table('leases'), clock),
    decisions: new DecisionLog(table('decisions')),
    queues: createQueueSender({
      reconcileQueue: storage.queue('reconcile'),
      probeQueue: storage.queue('probe'),
      pending: table('leases'),
      clock,
    }),
    limiter: (name, rate) => new SharedLimiter(table('limiters'), clock, name, rate),
    azureCredential,
  };
}

function buildCredential(config: DroverConfig, env: NodeJS.ProcessEnv): TokenCredential {
  const clientId = config.azure?.managedIdentityClientId ?? config.storage?.clientId ?? env.AZURE_CLIENT_ID;
  if (config.azure?.credential === 'managed-identity') {
    return clientId ? new ManagedIdentityCredential({ clientId }) : new ManagedIdentityCredential();
  }
  return clientId ? new DefaultAzureCredential({ managedIdentityClientId: clientId }) : new DefaultAzureCredential();
}

const cache = new Map<string, Promise<Runtime>>();

/**
 * The runtime for the current app settings, built once per config file and process. A failed
 * build (say, an invalid config) is not cached, so fixing the file fixes the next invocation.
 */
export function getRuntime(env: NodeJS.ProcessEnv = process.env): Promise<Runtime> {
  const key = resolveConfigFile(undefined, env);
  let rt = cache.get(key);
  if (!rt) {
    rt = createRuntime({ env }).then(async (r) => {
      await r.storage.ensure();
      return r;
    });
    rt.catch(() => cache.delete(key));
    cache.set(key, rt);
  }
  return rt;
}
