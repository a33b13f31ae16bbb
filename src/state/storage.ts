/**
 * Where Drover's tables and queues live, and clients for them. Azurite and key-based accounts
 * use a connection string; in Azure the account name plus a managed identity, with service
 * URLs built the way the Functions host builds them for `AzureWebJobsStorage__accountName`.
 */
import { TableClient, TableServiceClient, type TableServiceClientOptions } from '@azure/data-tables';
import { QueueClient, QueueServiceClient } from '@azure/storage-queue';
import type { TokenCredential } from '@azure/core-auth';
import type { PipelineRequest, SendRequest } from '@azure/core-rest-pipeline';
import type { StorageConfig } from '../config/schema.js';
import { storageError } from './errors.js';
import { retryAfterCapPolicy } from './retry-after-cap.js';
import { stallWatch, type StallEvent, type StallWatch, type StallWatchOptions } from './stall-watch.js';
import { stallWatchedQueue } from '../queue/watched-client.js';
import { errorMessage } from '../log.js';

export type StorageLocation =
  | { kind: 'connection'; connectionString: string }
  | { kind: 'identity'; tableServiceUri: string; queueServiceUri: string; clientId?: string };

/** Table names (alphanumeric) and queue names (lowercase, hyphens) derived from one prefix. */
export function storageNames(prefix: string) {
  return {
    tables: {
      instances: `${prefix}instances`,
      machines: `${prefix}machines`,
      targets: `${prefix}targets`,
      probes: `${prefix}probes`,
      limiters: `${prefix}limiters`,
      leases: `${prefix}leases`,
      decisions: `${prefix}decisions`,
      samples: `${prefix}samples`,
      history: `${prefix}history`,
    },
    queues: {
      reconcile: `${prefix}-reconcile`,
      probe: `${prefix}-probe`,
    },
  } as const;
}

export type TableName = keyof ReturnType<typeof storageNames>['tables'];
export type QueueName = keyof ReturnType<typeof storageNames>['queues'];

export class StorageConfigError extends Error {
  override name = 'StorageConfigError';
}

/**
 * Resolves the storage location from the config's `storage` section, falling back to the
 * Functions host's own `AzureWebJobsStorage` settings so a deployed app needs no second setting.
 */
export function resolveStorageLocation(cfg: StorageConfig | undefined, env: NodeJS.ProcessEnv = process.env): StorageLocation {
  if (cfg?.connection) return { kind: 'connection', connectionString: cfg.connection };
  if (cfg?.accountName || cfg?.tableServiceUri) {
    return identityLocation(cfg.accountName, cfg.tableServiceUri, cfg.queueServiceUri, cfg.clientId ?? env.AZURE_CLIENT_ID);
  }
  const host = env.AzureWebJobsStorage;
  if (host) return { kind: 'connection', connectionString: host };
  const account = env.AzureWebJobsStorage__accountName;
  const tableUri = env.AzureWebJobsStorage__tableServiceUri;
  if (account || tableUri) {
    return identityLocation(
      account,
      tableUri,
      env.AzureWebJobsStorage__queueServiceUri,
      env.AzureWebJobsStorage__clientId ?? env.AZURE_CLIENT_ID,
    );
  }
  throw new StorageConfigError(
    'no storage configured: set storage.connection or storage.accountName in the config file, or the AzureWebJobsStorage app setting',
  );
}

function identityLocation(account: string | undefined, tableUri: string | undefined, queueUri: string | undefined, clientId: string | undefined): StorageLocation {
  if (!account && !(tableUri && queueUri)) {
    throw new StorageConfigError('identity-based storage needs accountName, or both tableServiceUri and queueServiceUri');
  }
  return {
    kind: 'identity',
    tableServiceUri: tableUri ?? `https://${account}.table.core.windows.net`,
    queueServiceUri: queueUri ?? `https://${account}.queue.core.windows.net`,
    ...(clientId ? { clientId } : {}),
  };
}

export interface Storage {
  readonly prefix: string;
  readonly names: ReturnType<typeof storageNames>;
  table(name: TableName): TableClient;
  queue(name: QueueName): QueueClient;
  /** `<queue>-poison`, where the Functions host moves messages that kept failing. */
  poisonQueue(name: QueueName): QueueClient;
  /** Creates every table and queue (and the poison queues) if missing. Idempotent. */
  ensure(): Promise<void>;
  /**
   * Creates them again after the service lost them (an emulator restarted in memory, an account
   * wiped): table calls do it themselves on TableNotFound; queue callers call it on QueueNotFound
   * (`isStorageGone`). Concurrent callers share one attempt, at most one every few seconds.
   */
  recreate(): Promise<void>;
  /** Called after each recreation, for the host's log. */
  onRecreated(listener: () => void): void;
  /** Called with a line when a table's or queue's calls have stalled for long, while it lasts, and when it ends (src/state/stall-watch.ts). */
  onStalled(listener: (line: string, event: StallEvent) => void): void;
}

export interface StorageOptions {
  /** Defaults: warn after STORAGE_STALL_WARN_MS, a call of one try's timeout counts as stalled. */
  stall?: Partial<StallWatchOptions>;
}

/** How long after a recreation a new one is not tried: a flood of NotFound answers makes one. */
const RECREATE_GAP_MS = 2_000;

/**
 * Every Table and Queue call ends within a few seconds: each try has STORAGE_TRY_TIMEOUT_MS,
 * and there are STORAGE_TRIES of them, close together (a reconcile would rather fail and be
 * retried by the next pass than hold its object's slot for the SDK's default minutes).
 */
export const STORAGE_TRY_TIMEOUT_MS = 5_000;
export const STORAGE_TRIES = 3;
/** The TableClient options every Drover table uses: the SDK's retries, each try cut at `tryTimeoutMs`. */
export function tableClientOptions(tryTimeoutMs = STORAGE_TRY_TIMEOUT_MS) {
  return {
    retryOptions: { maxRetries: STORAGE_TRIES - 1, retryDelayInMs: 200, maxRetryDelayInMs: 1_000 },
    additionalPolicies: [
      {
        policy: {
          name: 'droverTryTimeout',
          sendRequest: (request: PipelineRequest, next: SendRequest) => {
            request.timeout = tryTimeoutMs;
            return next(request);
          },
        },
        position: 'perRetry' as const,
      },
      // A throttled try waits at most as long as the retry delay, whatever Retry-After says.
      { policy: retryAfterCapPolicy(1_000), position: 'perRetry' as const },
    ],
  };
}
const baseTableOptions = tableClientOptions();
/** Also for the `queue` load source's client: every queue read ends within a few seconds. */
export const queueOptions = { retryOptions: { maxTries: STORAGE_TRIES, tryTimeoutInMs: STORAGE_TRY_TIMEOUT_MS, retryDelayInMs: 200, maxRetryDelayInMs: 1_000 } };

export function createStorage(location: StorageLocation, prefix: string, credential?: () => TokenCredential, options: StorageOptions = {}): Storage {
  const names = storageNames(prefix);
  const stalls = stallWatch({ slowCallMs: STORAGE_TRY_TIMEOUT_MS, ...options.stall });
  const insecure = location.kind === 'connection' && /DefaultEndpointsProtocol=http;|UseDevelopmentStorage=true|=http:\/\//.test(location.connectionString);
  const tables = new Map<string, TableClient>();
  const queues = new Map<string, QueueClient>();

  const tableClient = (tableName: string): TableClient => {
    let client = tables.get(tableName);
    if (!client) {
      const tableOptions = { ...baseOptions, additionalPolicies: [...baseOptions.additionalPolicies, { policy: stallWatchPolicy(stalls, `table ${tableName}`), position: 'perCall' as const }] };
      client = connectTable(location, tableName, tableOptions, insecure, credential);
      tables.set(tableName, client);
    }
    return client;
  };
  const queueClient = (queueName: string): QueueClient => {
    let client = queues.get(queueName);
    if (!client) {
      client = connectQueue(location, queueName, credential);
      client = stallWatchedQueue(client, stalls, `queue ${queueName}`);
      queues.set(queueName, client);
    }
    return client;
  };

  let ensured: Promise<void> | undefined;
  let recreating: Promise<void> | undefined;
  let lastRecreated = 0;
  const listeners: (() => void)[] = [];
  const recreate = () => {
    if (recreating) return recreating;
    if (Date.now() - lastRecreated < RECREATE_GAP_MS) return Promise.resolve();
    ensured = undefined;
    recreating = storage.ensure().then(
      () => {
        lastRecreated = Date.now();
        recreating = undefined;
        for (const l of listeners) l();
      },
      (err: unknown) => {
        recreating = undefined;
        throw err;
      },
    );
    return recreating;
  };
  // Each table call answered TableNotFound has the tables made again and is sent once more.
  const baseOptions = { ...baseTableOptions, additionalPolicies: [...baseTableOptions.additionalPolicies, { policy: recreateTablesPolicy(recreate), position: 'perCall' as const }] };
  const storage: Storage = {
    prefix,
    names,
    table: (name) => tableClient(names.tables[name]),
    queue: (name) => queueClient(names.queues[name]),
    poisonQueue: (name) => queueClient(`${names.queues[name]}-poison`),
    ensure() {
      ensured ??= createTablesAndQueues(location, names, insecure, credential).catch((err: unknown) => {
        ensured = undefined;
        throw storageError(err, `creating the ${prefix} tables and queues`);
      });
      return ensured;
    },
    recreate,
    onRecreated: (listener) => listeners.push(listener),
    onStalled: (listener) => stalls.onStalled(listener),
  };
  return storage;
}

function connectTable(location: StorageLocation, tableName: string, tableOptions: TableServiceClientOptions, insecure: boolean, credential: (() => TokenCredential) | undefined): TableClient {
  return location.kind === 'connection'
    ? TableClient.fromConnectionString(location.connectionString, tableName, { allowInsecureConnection: insecure, ...tableOptions })
    : new TableClient(location.tableServiceUri, tableName, requireCredential(credential), tableOptions);
}

function connectQueue(location: StorageLocation, queueName: string, credential: (() => TokenCredential) | undefined): QueueClient {
  return location.kind === 'connection'
    ? new QueueClient(location.connectionString, queueName, queueOptions)
    : new QueueClient(`${location.queueServiceUri.replace(/\/$/, '')}/${queueName}`, requireCredential(credential), queueOptions);
}

/** Every table and queue (and each queue's poison queue) of the deployment, made if missing. */
async function createTablesAndQueues(location: StorageLocation, names: ReturnType<typeof storageNames>, insecure: boolean, credential: (() => TokenCredential) | undefined): Promise<void> {
  const svcTables =
    location.kind === 'connection'
      ? TableServiceClient.fromConnectionString(location.connectionString, { allowInsecureConnection: insecure })
      : new TableServiceClient(location.tableServiceUri, requireCredential(credential));
  const svcQueues =
    location.kind === 'connection'
      ? QueueServiceClient.fromConnectionString(location.connectionString)
      : new QueueServiceClient(location.queueServiceUri, requireCredential(credential));
  await Promise.all([
    ...Object.values(names.tables).map((t) => svcTables.createTable(t)),
    ...Object.values(names.queues).flatMap((q) => [
      svcQueues.getQueueClient(q).createIfNotExists(),
      svcQueues.getQueueClient(`${q}-poison`).createIfNotExists(),
    ]),
  ]);
}

function recreateTablesPolicy(recreate: () => Promise<void>) {
  return {
    name: 'droverRecreateTables',
    async sendRequest(request: PipelineRequest, next: SendRequest) {
      // The answer arrives as a response or, past the SDK's deserializer, as the error it became.
      const gone = (status: number | undefined, headers: { get(name: string): string | undefined } | undefined) =>
        status === 404 && headers?.get('x-ms-error-code') === 'TableNotFound';
      try {
        const response = await next(request);
        if (!gone(response.status, response.headers)) return response;
      } catch (err) {
        const response = (err as { response?: { status: number; headers: { get(name: string): string | undefined } } }).response;
        if (!gone(response?.status, response?.headers)) throw err;
      }
      await recreate();
      return next(request);
    },
  };
}

/** Times each whole call (all its tries) for the stall watch; the call's outcome is untouched. */
function stallWatchPolicy(watch: StallWatch, resource: string) {
  return {
    name: 'droverStallWatch',
    async sendRequest(request: PipelineRequest, next: SendRequest) {
      const ended = watch.begin(resource);
      try {
        const response = await next(request);
        ended({ answered: true });
        return response;
      } catch (err) {
        ended({ answered: (err as { response?: unknown }).response !== undefined, error: errorMessage(err) });
        throw err;
      }
    },
  };
}

function requireCredential(credential: (() => TokenCredential) | undefined): TokenCredential {
  if (!credential) throw new StorageConfigError('identity-based storage needs a credential');
  return credential();
}
