/**
 * An ARM simulator for the load sources that read through ARM, answering in ARM's own formats:
 * - Service Bus entities (`Microsoft.ServiceBus/namespaces/queues`, `…/topics/subscriptions`,
 *   api-version 2021-11-01): an `SBQueue` / `SBSubscription` whose `properties.countDetails`
 *   holds the active, dead-lettered, scheduled and transfer counts; a missing entity is ARM's 404;
 * - Azure Monitor metrics (`{resourceId}/providers/Microsoft.Insights/metrics`, api-version
 *   2024-02-01, `interval=PT1M`): one time series whose buckets cover the asked timespan, a
 *   bucket without data carrying only its `timeStamp`, as Azure Monitor answers.
 * Every request needs a bearer token. Plain HTTP on loopback, for tests and `npm run sim`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { recorded, type RecordedService } from '../recorder.js';

export const SERVICE_BUS_SIM_API = '2021-11-01';
export const METRICS_SIM_API = '2024-02-01';
const MINUTE = 60_000;

export interface SimCountDetails {
  activeMessageCount: number;
  deadLetterMessageCount?: number;
  scheduledMessageCount?: number;
  transferMessageCount?: number;
  transferDeadLetterMessageCount?: number;
}

export interface ArmSourcesSim {
  url: string;
  /** Creates or replaces a queue or subscription (its full ARM id) with these counts. */
  setEntity(id: string, counts: SimCountDetails): void;
  deleteEntity(id: string): void;
  /** A metric's buckets: bucket start (epoch ms, on a minute) → value; an absent minute has no data. */
  setMetric(resourceId: string, metric: string, buckets: ReadonlyMap<number, number>): void;
  /** The query strings of the metrics requests received, newest last. */
  metricsRequests: URLSearchParams[];
  close(): Promise<void>;
}

/** The metrics API is checked against its specification (npm run check:api); Service Bus has none here. */
function serviceOf(req: http.IncomingMessage): RecordedService {
  return /\/providers\/Microsoft\.Insights\/metrics(\?|$)/i.test(req.url ?? '') ? 'arm' : 'servicebus';
}

export async function startArmSourcesSim(): Promise<ArmSourcesSim> {
  const entities = new Map<string, SimCountDetails>();
  const metrics = new Map<string, ReadonlyMap<number, number>>();
  const metricsRequests: URLSearchParams[] = [];
  const server = http.createServer(recorded(serviceOf, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (!/^Bearer \S+/.test(req.headers.authorization ?? '')) return reply(401, armError('AuthenticationFailed', 'Authentication failed. The Authorization header is missing.'));
    if (req.method !== 'GET') return reply(405, armError('MethodNotAllowed', `${req.method} is not supported here`));
    const path = decodeURIComponent(url.pathname);
    const monitor = /^(.+)\/providers\/Microsoft\.Insights\/metrics$/i.exec(path);
    if (monitor) {
      metricsRequests.push(url.searchParams);
      return reply(...metricsAnswer(monitor[1]!, url.searchParams, metrics));
    }
    return reply(...entityAnswer(path, url.searchParams, entities));
  }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setEntity: (id, counts) => entities.set(id.toLowerCase(), counts),
    deleteEntity: (id) => entities.delete(id.toLowerCase()),
    setMetric: (resourceId, metric, buckets) => metrics.set(`${resourceId}|${metric}`.toLowerCase(), buckets),
    metricsRequests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const armError = (code: string, message: string) => ({ error: { code, message } });

type Answer = [number, unknown];

const ENTITY = /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.ServiceBus\/namespaces\/([^/]+)\/(queues\/([^/]+)|topics\/([^/]+)\/subscriptions\/([^/]+))$/i;

function entityAnswer(path: string, query: URLSearchParams, entities: ReadonlyMap<string, SimCountDetails>): Answer {
  const match = ENTITY.exec(path);
  if (!match) return [404, armError('InvalidResourceType', `The resource type could not be found for ${path}`)];
  if (query.get('api-version') !== SERVICE_BUS_SIM_API) return [400, armError('InvalidApiVersionParameter', `The api-version '${query.get('api-version')}' is invalid.`)];
  const counts = entities.get(path.toLowerCase());
  const name = match[3] ?? match[5]!;
  if (!counts) return [404, armError('NotFound', `The messaging entity '${match[1]}:${match[3] ? 'Queue' : 'Subscription'}:${name}' could not be found.`)];
  const countDetails = { deadLetterMessageCount: 0, scheduledMessageCount: 0, transferMessageCount: 0, transferDeadLetterMessageCount: 0, ...counts };
  const messageCount = Object.values(countDetails).reduce((a, b) => a + b, 0);
  return [
    200,
    {
      id: path,
      name,
      type: match[3] ? 'Microsoft.ServiceBus/Namespaces/Queues' : 'Microsoft.ServiceBus/Namespaces/Topics/Subscriptions',
      properties: { countDetails, messageCount, status: 'Active', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', accessedAt: '2026-12-07T00:00:00Z', maxDeliveryCount: 10, lockDuration: 'PT1M' },
    },
  ];
}

function metricsAnswer(resourceId: string, query: URLSearchParams, metrics: ReadonlyMap<string, ReadonlyMap<number, number>>): Answer {
  if (query.get('api-version') !== METRICS_SIM_API) return [400, armError('InvalidApiVersionParameter', `The api-version '${query.get('api-version')}' is invalid.`)];
  if (query.get('interval') !== 'PT1M') return [400, armError('BadRequest', 'this simulator answers interval=PT1M only')];
  const metric = query.get('metricnames') ?? '';
  const buckets = metrics.get(`${resourceId}|${metric}`.toLowerCase());
  if (!buckets) return [400, armError('BadRequest', `Failed to find metric configuration for provider: ${resourceId}, metric: ${metric}`)];
  const [from, to] = (query.get('timespan') ?? '').split('/').map((t) => Date.parse(t));
  if (from === undefined || to === undefined || Number.isNaN(from) || Number.isNaN(to) || to <= from) return [400, armError('BadRequest', 'timespan is not valid')];
  const key = (query.get('aggregation') ?? 'Average').toLowerCase();
  const data = [];
  for (let start = Math.floor(from / MINUTE) * MINUTE; start < to; start += MINUTE) {
    const value = buckets.get(start);
    data.push({ timeStamp: new Date(start).toISOString().replace('.000Z', 'Z'), ...(value === undefined ? {} : { [key]: value }) });
  }
  return [
    200,
    {
      cost: data.length,
      timespan: `${new Date(from).toISOString()}/${new Date(to).toISOString()}`,
      interval: 'PT1M',
      value: [
        {
          id: `${resourceId}/providers/Microsoft.Insights/metrics/${metric}`,
          type: 'Microsoft.Insights/metrics',
          name: { value: metric, localizedValue: metric },
          unit: 'Percent',
          timeseries: [{ metadatavalues: [], data }],
          errorCode: 'Success',
        },
      ],
      namespace: 'Microsoft.Compute/virtualMachineScaleSets',
      resourceregion: 'westeurope',
    },
  ];
}
