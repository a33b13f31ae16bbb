/**
 * The `azureMonitor` load source (KEDA's azure-monitor scaler): a platform metric of an Azure
 * resource — a scale set's `Percentage CPU` by default for a Pool target — read with the ARM
 * metrics API (`Microsoft.Insights/metrics`, api-version 2024-02-01) in 1-minute buckets over
 * `window`.
 *
 * Azure Monitor's newest buckets are often missing, or 0 that fills in later. So a bucket whose
 * end is older than `delay` is complete and counts whatever its value (an idle resource reads 0);
 * a newer bucket counts only when present and non-zero; a window with no bucket to count is no
 * reading — never 0, which would scale down on a metric that has not arrived. `windowReading`
 * gives the end of its newest counted bucket as `measuredAt` (status shows the data's age), but
 * the sample is dated when read: one dated minutes back would fall out of a 60 s stable window
 * and leave the target with no evidence. Azure Monitor's data changes each minute, so the source
 * is read at most once a minute (its kind's `minPollIntervalMs`, enforced by collect.ts).
 */
import { z } from 'zod';
import { duration, nonEmpty } from '../config/fields.js';
import { armGet } from './arm-read.js';
import { defineKind, type SourcePorts, type SourceReading, type SourceTargetRef } from './source-kind.js';

export const METRICS_API_VERSION = '2024-02-01';
/** Monitoring Reader: reads metrics (Microsoft.Insights/metrics/read) and nothing that changes anything. */
export const MONITORING_READER = '43d0d8ad-25c7-4714-9337-8ba259a9fe05';
export const BUCKET_MS = 60_000;
/** A metrics read answers in a second or two; past this it fails only this source. */
export const METRICS_TIMEOUT_MS = 10_000;
const MAX_WINDOW_MS = 60 * 60_000;

export const AGGREGATIONS = ['Average', 'Total', 'Maximum', 'Minimum', 'Count'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

const resourceId = z
  .string({ error: 'expected a resource id' })
  .regex(/^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/[^/]+\/.+[^/]$/i, { error: 'expected a resource id: /subscriptions/…/resourceGroups/…/providers/…' });

const keys = {
  metric: nonEmpty,
  resourceId: resourceId.optional(),
  metricNamespace: nonEmpty.optional(),
  aggregation: z.enum(AGGREGATIONS, { error: `expected ${AGGREGATIONS.join(', ')}` }).default('Average'),
  window: duration('5m', { positive: true }).refine((ms) => ms >= BUCKET_MS && ms <= MAX_WINDOW_MS && ms % BUCKET_MS === 0, { error: 'expected whole minutes from 1m to 1h' }),
  filter: nonEmpty.max(1_000, { error: 'expected at most 1000 characters' }).optional(),
  delay: duration('3m').refine((ms) => ms <= MAX_WINDOW_MS, { error: 'expected at most 1h' }),
};

export type AzureMonitorConfig = z.output<z.ZodObject<typeof keys>>;

/** The resource read: `resourceId`, or the Pool target's scale set. */
export function resourceOf(config: Pick<AzureMonitorConfig, 'resourceId'>, target: SourceTargetRef): string | undefined {
  if (config.resourceId) return config.resourceId;
  if (target.kind !== 'pool' || !target.scaleSet.subscriptionId) return undefined;
  const { subscriptionId, resourceGroup, name } = target.scaleSet;
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`;
}

export const azureMonitorKind = defineKind({
  name: 'azureMonitor',
  keys,
  checkTarget: (config, target) =>
    config.resourceId || target.targetKind === 'pool' ? [] : [{ path: ['resourceId'], message: 'required: only a Pool target has a default (its scale set)' }],
  traits: { delivery: 'polled', holdsWork: false, sampling: 'total', metricType: { default: 'total', fixed: false }, minPollIntervalMs: BUCKET_MS },
  open: (config, ports) => ({ read: (signal) => readAzureMonitor(config, ports, signal) }),
  describe: (config) => `azureMonitor ${config.metric} (${config.aggregation}, ${config.window / BUCKET_MS}m) of ${config.resourceId ?? 'the pool\'s scale set'}`,
  grants: (config, target) => {
    const id = resourceOf(config, target);
    if (!id) return [];
    return [{ kind: 'azureRole', roleId: MONITORING_READER, roleName: 'Monitoring Reader', scope: { resourceId: id }, why: `the azureMonitor source's ${config.metric} metric, on ${id} only` }];
  },
});

export async function readAzureMonitor(config: AzureMonitorConfig, ports: Pick<SourcePorts, 'credential' | 'azure' | 'target' | 'now'>, signal: AbortSignal): Promise<SourceReading> {
  const id = resourceOf(config, ports.target.ref);
  if (!id) return { ok: false, error: `azureMonitor ${config.metric}: no resourceId, and azure.subscriptionId is not set for the pool's scale set` };
  const where = `azureMonitor ${config.metric} of ${id}`;
  const now = ports.now();
  const answer = await armGet(metricsUrl(ports.azure.resourceManagerEndpoint, id, config, now), ports, METRICS_TIMEOUT_MS, signal);
  if (!answer.ok) return { ok: false, error: `${where}: ${answer.error}` };
  const series = seriesOf(answer.body, config.aggregation);
  if (!series.ok) return { ok: false, error: `${where}: ${series.error}` };
  const reading = windowReading(series.buckets, { now, delayMs: config.delay, windowMs: config.window, aggregation: config.aggregation });
  return reading.ok ? reading : { ok: false, error: `${where}: ${reading.error}` };
}

/** The metrics request: 1-minute buckets over the window ending at the current minute's end. */
export function metricsUrl(endpoint: string, resourceId: string, config: AzureMonitorConfig, now: number): URL {
  const end = Math.ceil(now / BUCKET_MS) * BUCKET_MS;
  const url = new URL(`${resourceId.replace(/^\/+/, '/')}/providers/Microsoft.Insights/metrics`, endpoint);
  const params = url.searchParams;
  params.set('api-version', METRICS_API_VERSION);
  params.set('metricnames', config.metric);
  params.set('aggregation', config.aggregation);
  params.set('interval', 'PT1M');
  params.set('timespan', `${new Date(end - config.window).toISOString()}/${new Date(end).toISOString()}`);
  if (config.metricNamespace) params.set('metricnamespace', config.metricNamespace);
  if (config.filter) params.set('$filter', config.filter);
  return url;
}

/** One bucket: its start (epoch ms) and the aggregation's value, absent when Azure Monitor has none yet. */
export interface Bucket {
  start: number;
  value: number | undefined;
}

type MetricsAnswer = { value?: { errorCode?: string; errorMessage?: string; timeseries?: { data?: Record<string, unknown>[] }[] }[] };

/** The one time series of a metrics answer, as buckets. */
export function seriesOf(body: unknown, aggregation: Aggregation): { ok: true; buckets: Bucket[] } | { ok: false; error: string } {
  const metric = (body as MetricsAnswer | null)?.value;
  if (!Array.isArray(metric) || metric.length !== 1) return { ok: false, error: `expected one metric in the answer, got ${Array.isArray(metric) ? metric.length : 'none'}` };
  const { errorCode, errorMessage, timeseries } = metric[0]!;
  if (errorCode !== undefined && errorCode !== 'Success') return { ok: false, error: `${errorCode}${errorMessage ? `: ${String(errorMessage).slice(0, 200)}` : ''}` };
  if (!Array.isArray(timeseries) || timeseries.length === 0) return { ok: true, buckets: [] };
  if (timeseries.length > 1) return { ok: false, error: `gave ${timeseries.length} time series, expected one (narrow the filter)` };
  const key = aggregation.toLowerCase();
  const buckets: Bucket[] = [];
  for (const point of timeseries[0]!.data ?? []) {
    const start = Date.parse(String(point.timeStamp));
    const value = point[key];
    if (Number.isNaN(start)) return { ok: false, error: `a bucket without a timeStamp: ${JSON.stringify(point.timeStamp)}` };
    buckets.push({ start, value: typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined });
  }
  return { ok: true, buckets };
}

/**
 * The window's reading from its buckets (pure). A bucket ending at least `delayMs` ago is
 * complete and counts as it is (missing counts nothing); a newer one counts only when present
 * and non-zero. Average: the mean of the counted buckets; Maximum, Minimum: theirs; Total, Count: their sum.
 */
export function windowReading(buckets: readonly Bucket[], o: { now: number; delayMs: number; windowMs: number; aggregation: Aggregation }): SourceReading {
  const from = Math.ceil(o.now / BUCKET_MS) * BUCKET_MS - o.windowMs;
  const counted = buckets.filter((b) => {
    if (b.start < from || b.start > o.now || b.value === undefined) return false;
    return b.start + BUCKET_MS <= o.now - o.delayMs || b.value > 0;
  });
  if (counted.length === 0) return { ok: false, error: `no bucket to count in the last ${o.windowMs / BUCKET_MS} minutes (complete ones are older than delay; newer ones count only when present and non-zero): no reading, so no scale-down` };
  const values = counted.map((b) => b.value!);
  const at = Math.min(o.now, Math.max(...counted.map((b) => b.start + BUCKET_MS)));
  return { ok: true, value: combine(values, o.aggregation), measuredAt: at };
}

function combine(values: number[], aggregation: Aggregation): number {
  if (aggregation === 'Maximum') return Math.max(...values);
  if (aggregation === 'Minimum') return Math.min(...values);
  const sum = values.reduce((a, b) => a + b, 0);
  return aggregation === 'Average' ? sum / values.length : sum;
}
