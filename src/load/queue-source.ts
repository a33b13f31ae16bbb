/**
 * The `queue` load source: an Azure Storage queue's approximate message count, read with a
 * connection string or, given an account name, with Drover's Azure identity. A failed read
 * is no sample.
 */
import { QueueClient } from '@azure/storage-queue';
import type { TokenCredential } from '@azure/core-auth';
import { nonEmpty } from '../config/fields.js';
import { errorMessage } from '../log.js';
import type { LoadReading } from './http-source.js';
import { defineKind } from './source-kind.js';

export interface QueueSourceConfig {
  queueName: string;
  connection?: string;
  accountName?: string;
}

/**
 * The queue's client retries as Drover's own storage clients do (a few tries close together),
 * inside the read's deadline; kept here so the source kinds, which config load reads, do not
 * import the storage adapter (and through it the configuration again).
 */
const QUEUE_SOURCE_OPTIONS = { retryOptions: { maxTries: 3, tryTimeoutInMs: 5_000, retryDelayInMs: 200, maxRetryDelayInMs: 1_000 } };

export function queueClientFor(source: QueueSourceConfig, credential: () => TokenCredential): QueueClient {
  if (source.connection) return new QueueClient(source.connection, source.queueName, QUEUE_SOURCE_OPTIONS);
  if (source.accountName) return new QueueClient(`https://${source.accountName}.queue.core.windows.net/${source.queueName}`, credential(), QUEUE_SOURCE_OPTIONS);
  throw new Error('a queue load source needs connection or accountName');
}

/** A queue's properties answer in milliseconds; a read still unanswered after this is no sample. */
export const QUEUE_READ_TIMEOUT_MS = 5_000;

export async function readQueueLoad(client: QueueClient, signal?: AbortSignal): Promise<LoadReading> {
  const timeout = AbortSignal.timeout(QUEUE_READ_TIMEOUT_MS);
  try {
    const props = await client.getProperties({ abortSignal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    const count = props.approximateMessagesCount;
    if (count === undefined) return { ok: false, error: `queue ${client.name}: no approximate message count in the answer` };
    return { ok: true, value: count };
  } catch (error) {
    if (timeout.aborted) return { ok: false, error: `queue ${client.name}: no answer within ${QUEUE_READ_TIMEOUT_MS} ms` };
    return { ok: false, error: `queue ${client.name}: ${errorMessage(error)}` };
  }
}

/** Storage Queue Data Reader: the approximate message count needs no more. */
const STORAGE_QUEUE_DATA_READER = '19e7f393-937e-4f77-808e-94535e297925';

/** The key-based form of a connection string: it would ship a secret with the package. */
const KEYED_CONNECTION = /(^|;)\s*(AccountKey|SharedAccessSignature|SharedAccessKey)\s*=/i;

export const queueKind = defineKind({
  name: 'queue',
  keys: { queueName: nonEmpty, connection: nonEmpty.optional(), accountName: nonEmpty.optional() },
  check: (config) => (config.connection || config.accountName ? [] : [{ path: [], message: 'a queue source needs connection or accountName' }]),
  traits: { delivery: 'polled', holdsWork: true, sampling: 'total', metricType: { default: 'total', fixed: false } },
  open(config, ports) {
    let client: QueueClient | undefined;
    return {
      async read(signal) {
        try {
          client ??= queueClientFor(config, () => ports.credential());
        } catch (error) {
          return { ok: false, error: `queue ${config.queueName}: ${errorMessage(error)}` };
        }
        return readQueueLoad(client, signal);
      },
    };
  },
  describe: (config) => `queue ${config.accountName ? `${config.accountName}/` : ''}${config.queueName}`,
  grants: (config) =>
    config.accountName
      ? [
          {
            kind: 'azureRole',
            roleId: STORAGE_QUEUE_DATA_READER,
            roleName: 'Storage Queue Data Reader',
            scope: { lookup: { resourceType: 'Microsoft.Storage/storageAccounts', property: 'name', equals: config.accountName }, suffix: `/queueServices/default/queues/${config.queueName}` },
            why: `the queue source's approximate message count, on queue ${config.queueName} only`,
          },
        ]
      : [],
  secrets: (config) =>
    config.connection && !KEYED_CONNECTION.test(config.connection)
      ? [{ path: ['connection'], message: 'in Azure a queue load source reads with the managed identity; give accountName instead' }]
      : [],
});
