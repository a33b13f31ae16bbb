/**
 * The composition root: one place builds the config, storage, queues, clock and adapters a
 * handler needs. It is built once by whoever hosts the handlers (src/runtime/app-runtime.ts for
 * the Functions entry, the local host's caller for `drover run` and the demo) and handed to
 * them. Nothing here runs at import time.
 */
import os from 'node:os';
import { identityCredential } from '../azure/credential.js';
import type { TokenCredential } from '@azure/core-auth';
import { systemClock, type Clock } from '../clock.js';
import { loadConfig, resolveConfigFile } from '../config/load.js';
import type { DroverConfig } from '../config/schema.js';
import type { Rate } from '../config/rate.js';
import { createStorage, resolveStorageLocation, type Storage, type StorageOptions, type TableName } from '../state/storage.js';
import { EntityTable } from '../state/entity-table.js';
import { Leases } from '../state/leases.js';
import { serviceResponses, type ServiceClock } from '../state/service-clock.js';
import { skewWatchedService } from '../state/skew-watch.js';
import { PendingStore } from '../queue/pending-store.js';
import { NewestConfig, type HostConfiguration } from '../queue/newest-config.js';
import { configHash, readConfigSequence } from '../config/sequence.js';
import { SharedLimiter } from '../state/limiter.js';
import { DecisionLog } from '../state/decisions.js';
import { HistoryStore } from '../state/history-store.js';
import { createQueueSender, type QueueSender } from '../queue/sender.js';
import type { TableClient } from '@azure/data-tables';
import { buildStores, type Stores } from './stores.js';
import type { ScaleSetApi } from '../azure/scale-set-api.js';
import type { ScaleTargetApi } from '../kubernetes/scale-target-api.js';
import type { PodMetricsApi } from '../load/resource-source.js';
import type { AutoscaleSettingsApi } from '../azure/autoscale-settings.js';
import { AutoscaleWatch } from '../pool/autoscale-watch.js';
import { ScaleSetReads } from '../pool/scale-set-reads.js';

export interface Runtime {
  readonly config: DroverConfig;
  readonly configFile: string;
  /** This host's configuration and the newest one any host runs (src/queue/newest-config.ts). */
  readonly configuration: HostConfiguration;
  readonly clock: Clock;
  readonly storage: Storage;
  readonly leases: Leases;
  readonly decisions: DecisionLog;
  /** The per-minute time series of every pool and target (status page timelines). */
  readonly history: HistoryStore;
  readonly queues: QueueSender;
  /** Who holds leases taken by this process (instance id and process id). */
  readonly holder: string;
  /** Table helpers by name: for the composition root only; a job is handed the stores it uses (`stores`). */
  table(name: TableName): EntityTable;
  /** The tables and ports by what they hold (src/runtime/stores.ts), for parts that take a few. */
  readonly stores: Stores;
  limiter(name: string, rate: Rate): SharedLimiter;
  /** Azure credential for ARM and identity-based storage, built on first use. */
  azureCredential(): TokenCredential;
  /** Environment the runtime was built from (app settings). */
  readonly env: NodeJS.ProcessEnv;
  /** Aborted when the host running this process shuts down: passes stop waiting and wind up. */
  readonly shutdown: AbortController;
  /**
   * The ARM compute adapter, loaded on first use: @azure/arm-compute is only imported when a
   * pass needs it, which keeps cold starts of queue-only invocations light.
   */
  scaleSetApi(): Promise<ScaleSetApi>;
  /** The Kubernetes scale adapter, loaded on first use (as `scaleSetApi`). */
  scaleTargets(): Promise<ScaleTargetApi>;
  /** The pods and metrics.k8s.io reads of the `resource` load source, loaded on first use (as `scaleTargets`). */
  podMetrics(): Promise<PodMetricsApi>;
  /** The resource groups' autoscale settings, read at most once per pool cache ttl by this process (the pool's autoscale hold). */
  readonly autoscale: AutoscaleWatch;
  /** The scale sets this process last read from ARM: pool passes within a read's period reuse it. */
  readonly scaleSetReads: ScaleSetReads;
  /** Called once with a warning line when this host's clock is more than 30 s off storage's (src/state/skew-watch.ts). */
  onClockSkew(listener: (line: string) => void): void;
}

/**
 * Builds the table helper for one of Drover's tables, once per runtime. The default wraps the
 * client in an EntityTable; a test that injects a fault at a table write passes its own.
 */
export type TableFactory = (name: TableName, client: TableClient) => EntityTable;

const entityTable: TableFactory = (_name, client) => new EntityTable(client);

/** Replacements for the adapters, for tests that inject faults between real calls. */
export interface RuntimeAdapters {
  scaleSetApi?: ScaleSetApi;
  scaleTargets?: ScaleTargetApi;
  autoscaleSettings?: AutoscaleSettingsApi;
}

export interface RuntimeOptions {
  configFile?: string;
  config?: DroverConfig;
  clock?: Clock;
  /**
   * The storage service's clock, for tests that move time by hand (`simulatedService(clock)`):
   * lease expiry and occurrence claims are judged on it. By default, the service's own responses.
   */
  serviceClock?: ServiceClock;
  env?: NodeJS.ProcessEnv;
  adapters?: RuntimeAdapters;
  tables?: TableFactory;
  /** Storage client options: the stall warning's thresholds, for tests that cannot wait 10 s. */
  storage?: StorageOptions;
  /** The configuration sequence; by default the build's stamp beside the file, or the file's time (0 for an inline config). */
  configSeq?: number;
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const env = options.env ?? process.env;
  const configFile = resolveConfigFile(options.configFile, env);
  const config = options.config ?? (await loadConfig(configFile));
  const clock = options.clock ?? systemClock;
  const location = resolveStorageLocation(config.storage, env);
  // One credential (and token cache) per identity, shared by storage, ARM and queue sources.
  const credentials = new Map<string, TokenCredential>();
  const identity = (clientId: string | undefined) => {
    const mode = config.azure?.credential === 'managed-identity' ? 'managed-identity' : 'default';
    const key = `${mode}/${clientId ?? ''}`;
    let credential = credentials.get(key);
    if (!credential) credentials.set(key, (credential = identityCredential(mode, clientId, env)));
    return credential;
  };
  // Storage and queue load sources use the identity storage names, else the one ARM uses.
  const azureCredential = () => identity((location.kind === 'identity' ? location.clientId : undefined) ?? config.azure?.managedIdentityClientId);
  const storage = createStorage(location, config.storage?.prefix ?? 'drover', azureCredential, options.storage);
  const makeTable = options.tables ?? entityTable;
  const tables = new Map<string, EntityTable>();
  const table = (name: TableName) => {
    let t = tables.get(name);
    if (!t) tables.set(name, (t = makeTable(name, storage.table(name))));
    return t;
  };
  const skewListeners: ((line: string) => void)[] = [];
  const serviceClock = skewWatchedService(options.serviceClock ?? serviceResponses, clock, (line) => skewListeners.forEach((l) => l(line)));
  const queues = createQueueSender({
    reconcileQueue: storage.queue('reconcile'),
    probeQueue: storage.queue('probe'),
    pending: new PendingStore(table('leases'), clock, serviceClock),
    recreate: () => storage.recreate(),
    clock,
  });
  // One compute adapter (one ARM pipeline) for the scale sets and their resource groups' autoscale settings.
  const compute = once(async () => {
    if (!config.azure) throw new Error('the configuration has no azure section');
    const { createComputeScaleSetApi } = await import('../azure/compute-adapter.js');
    const shared = config.azure.credential === 'dev' ? {} : { credential: identity(config.azure.managedIdentityClientId) };
    return createComputeScaleSetApi(config.azure, { clock, env, requestTimeoutMs: config.azure.requestTimeout, ...shared });
  });
  const holder = `${env.WEBSITE_INSTANCE_ID?.slice(0, 12) ?? os.hostname()}:${process.pid}`;
  const seq = options.configSeq ?? (options.config ? 0 : readConfigSequence(configFile).seq);
  const hash = configHash(config);
  return {
    config,
    configFile,
    configuration: { seq, hash, newest: new NewestConfig(table('leases'), clock, serviceClock, { seq, hash }, holder) },
    clock,
    storage,
    env,
    shutdown: new AbortController(),
    holder,
    table,
    leases: new Leases(table('leases'), clock, serviceClock),
    decisions: new DecisionLog(table('decisions')),
    history: new HistoryStore(table('history')),
    queues,
    stores: buildStores(table, queues, clock, config.targets, serviceClock),
    limiter: (name, rate) => new SharedLimiter(table('limiters'), clock, name, rate),
    azureCredential,
    scaleSetApi: once(async () => options.adapters?.scaleSetApi ?? compute()),
    // An injected compute adapter reads the autoscale settings too (one pipeline, not a second one).
    scaleSetReads: new ScaleSetReads(),
    onClockSkew: (listener) => void skewListeners.push(listener),
    autoscale: new AutoscaleWatch(once(async () => options.adapters?.autoscaleSettings ?? readsAutoscale(options.adapters?.scaleSetApi) ?? compute()), clock),
    scaleTargets: once(async () => {
      if (options.adapters?.scaleTargets) return options.adapters.scaleTargets;
      if (!config.kubernetes) throw new Error('the configuration has no kubernetes section');
      const [{ loadKubeConfig }, { KubernetesScaleTargets }] = await Promise.all([
        import('../kubernetes/kubeconfig.js'),
        import('../kubernetes/client-node-scale-targets.js'),
      ]);
      return new KubernetesScaleTargets(loadKubeConfig(config.kubernetes, { clock }), { requestTimeoutMs: config.kubernetes.requestTimeout });
    }),
    podMetrics: once(async () => {
      if (!config.kubernetes) throw new Error('the configuration has no kubernetes section');
      const [{ loadKubeConfig }, { podMetricsApi }] = await Promise.all([import('../kubernetes/kubeconfig.js'), import('../kubernetes/pod-metrics-api.js')]);
      return podMetricsApi(loadKubeConfig(config.kubernetes, { clock }));
    }),
  };
}

function readsAutoscale(api: ScaleSetApi | undefined): AutoscaleSettingsApi | undefined {
  return api && 'listAutoscaleSettings' in api ? (api as ScaleSetApi & AutoscaleSettingsApi) : undefined;
}

/** Memoises an async factory; a failure is not kept, so the next call tries again. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= make().catch((err: unknown) => {
      value = undefined;
      throw err;
    });
    return value;
  };
}
