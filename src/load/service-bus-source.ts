/**
 * The `serviceBus` load source (KEDA's azure-servicebus scaler): the ACTIVE message count of a
 * queue, or of a topic's subscription — not dead-lettered, not scheduled, not waiting for a
 * transfer — read with Drover's identity through the ARM read of the entity
 * (`Microsoft.ServiceBus/namespaces/queues/read`, `…/topics/subscriptions/read`), whose answer
 * carries `properties.countDetails.activeMessageCount`.
 *
 * Why ARM and not the data plane: the data plane's runtime properties (the entity's
 * `CountDetails`) are a management operation there and need Manage rights — a SAS key with
 * Manage, or *Azure Service Bus Data Owner*, which may also send, receive and delete entities.
 * The ARM read needs a read action on the one entity (Reader scoped to it). So `connectionSetting`
 * is refused with that reason, rather than shipping Manage rights for a count.
 *
 * A missing entity is a failure (a deleted queue is not an empty one). Each read has a 10 s
 * deadline and a 64 KiB answer.
 */
import { z } from 'zod';
import { nonEmpty } from '../config/fields.js';
import { isLoopbackHost } from '../config/loopback.js';
import { armGet } from './arm-read.js';
import { defineKind, type SourceIssue, type SourcePorts, type SourceReading } from './source-kind.js';

export const SERVICE_BUS_API_VERSION = '2021-11-01';
/** Reader: `*\/read` only; scoped to the one entity it reads that entity and nothing else. */
export const READER = 'acdd72a7-3385-48ef-bd42-f606fba81ae7';
export const SERVICE_BUS_TIMEOUT_MS = 10_000;

/** An entity name as Service Bus allows it (letters, digits, `.`, `-`, `_`, `/` for queues). */
const entityName = nonEmpty.max(260, { error: 'expected at most 260 characters' }).regex(/^[A-Za-z0-9][A-Za-z0-9._\-/~]*$/, { error: 'expected a Service Bus entity name' });

const keys = {
  /** `orders` or `orders.servicebus.windows.net`; ARM knows the namespace by its short name. */
  namespace: nonEmpty.regex(/^[A-Za-z][A-Za-z0-9-]{0,49}(\.[A-Za-z0-9-]+)*$/, { error: 'expected a namespace name or host name' }),
  queueName: entityName.optional(),
  topicName: entityName.optional(),
  subscriptionName: entityName.optional(),
  resourceGroup: nonEmpty.optional(),
  endpoint: z.url({ error: 'expected a URL' }).optional(),
  connectionSetting: nonEmpty.optional(),
};

export type ServiceBusConfig = z.output<z.ZodObject<typeof keys>>;

export function checkServiceBus(config: ServiceBusConfig): SourceIssue[] {
  const issues: SourceIssue[] = [];
  if (config.queueName !== undefined && config.topicName !== undefined) issues.push({ path: ['topicName'], message: 'expected queueName or topicName, not both' });
  else if (config.queueName === undefined && config.topicName === undefined) issues.push({ path: ['queueName'], message: 'expected queueName, or topicName with subscriptionName' });
  if (config.topicName !== undefined && config.subscriptionName === undefined) issues.push({ path: ['subscriptionName'], message: 'required with topicName' });
  if (config.queueName !== undefined && config.topicName === undefined && config.subscriptionName !== undefined) issues.push({ path: ['subscriptionName'], message: 'only with topicName' });
  if (config.connectionSetting !== undefined) {
    issues.push({ path: ['connectionSetting'], message: 'not supported: the data plane\'s message counts need Manage rights; give resourceGroup and Drover reads the count through ARM with its identity (Reader on the entity)' });
  }
  if (config.resourceGroup === undefined) issues.push({ path: ['resourceGroup'], message: 'required: the namespace\'s resource group, for the ARM read of the entity' });
  if (config.endpoint && new URL(config.endpoint).protocol === 'http:' && !isLoopbackHost(new URL(config.endpoint).hostname)) {
    issues.push({ path: ['endpoint'], message: 'expected https: a token is sent to it (plain http only on loopback)' });
  }
  return issues;
}

/** The entity's ARM id below a subscription. */
export function entityId(config: ServiceBusConfig, subscriptionId: string): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${config.resourceGroup ?? ''}/providers/Microsoft.ServiceBus/namespaces/${namespaceName(config)}${entitySuffix(config)}`;
}

/** ARM knows a namespace by its short name, the host name's first label. */
const namespaceName = (config: ServiceBusConfig) => config.namespace.split('.')[0]!;

/** The entity below its namespace: `/queues/q` or `/topics/t/subscriptions/s`. */
const entitySuffix = (config: ServiceBusConfig) =>
  config.queueName !== undefined ? `/queues/${config.queueName}` : `/topics/${config.topicName ?? ''}/subscriptions/${config.subscriptionName ?? ''}`;

const entityText = (config: ServiceBusConfig) => (config.queueName !== undefined ? `queue ${config.queueName}` : `subscription ${config.topicName ?? ''}/${config.subscriptionName ?? ''}`);

export const serviceBusKind = defineKind({
  name: 'serviceBus',
  keys,
  check: checkServiceBus,
  traits: { delivery: 'polled', holdsWork: true, sampling: 'total', metricType: { default: 'total', fixed: false } },
  open: (config, ports) => ({ read: (signal) => readServiceBus(config, ports, signal) }),
  describe: (config) => `serviceBus ${config.namespace} ${entityText(config)}`,
  grants: (config) => [
    {
      kind: 'azureRole',
      roleId: READER,
      roleName: 'Reader',
      scope: { lookup: { resourceType: 'Microsoft.ServiceBus/namespaces', property: 'name', equals: namespaceName(config) }, suffix: entitySuffix(config) },
      why: `the serviceBus source's active message count (the ARM read of ${entityText(config)}), on that entity only`,
    },
  ],
});

export async function readServiceBus(config: ServiceBusConfig, ports: Pick<SourcePorts, 'credential' | 'azure'>, signal: AbortSignal): Promise<SourceReading> {
  const where = `serviceBus ${config.namespace} ${entityText(config)}`;
  if (!ports.azure.subscriptionId) return { ok: false, error: `${where}: azure.subscriptionId is not set (the namespace's subscription)` };
  const url = new URL(entityId(config, ports.azure.subscriptionId), config.endpoint ?? ports.azure.resourceManagerEndpoint);
  url.searchParams.set('api-version', SERVICE_BUS_API_VERSION);
  const answer = await armGet(url, ports, SERVICE_BUS_TIMEOUT_MS, signal);
  if (!answer.ok) return { ok: false, error: `${where}: ${answer.status === 404 ? 'not found (a missing entity is no reading, not 0); ' : ''}${answer.error}` };
  return activeCountOf(answer.body, where);
}

/** `properties.countDetails.activeMessageCount` of an SBQueue or SBSubscription (pure). */
export function activeCountOf(body: unknown, where: string): SourceReading {
  const count = (body as { properties?: { countDetails?: { activeMessageCount?: unknown } } } | null)?.properties?.countDetails?.activeMessageCount;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) return { ok: false, error: `${where}: no properties.countDetails.activeMessageCount in the answer` };
  return { ok: true, value: count };
}
