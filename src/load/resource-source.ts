/**
 * The `resource` load source (HPA's Resource metric with `averageUtilization`): CPU or memory
 * use as a percent of the pods' requests, `targetPerReplica` the percent wanted. The pods are
 * those of the scale subresource's selector; their use comes from `metrics.k8s.io`; the replicas
 * wanted come from HPA's replica calculator (replica-calculator.ts), not the ratio alone.
 *
 * The calculator gives a replica count, so the reading is that count × targetPerReplica: the
 * pods' summed utilization after HPA's rules, a total the pass divides by targetPerReplica
 * again. Its metricType is therefore fixed (`total`), and giving one is an error. A Pool has no
 * pods, so the kind is refused on a Pool target.
 */
import { z } from 'zod';
import { defineKind, type SourcePorts, type SourceReading, type SourceTargetRef } from './source-kind.js';
import { resourceReplicas, type ContainerRequest, type PodFacts, type PodUsage, type ResourceName } from './replica-calculator.js';
import { errorMessage } from '../log.js';
import { resourceOf, type KubernetesScaleTargetRef } from '../kubernetes/scale-target-ref.js';

/** A namespace's pods and their metrics answer in well under a second; past this the read fails. */
export const RESOURCE_TIMEOUT_MS = 10_000;
/** More pods than this behind one target is a selector mistake, not a workload to size. */
export const MAX_PODS = 2_000;

/** What the reader asks of the cluster; the adapter gives raw JSON, parsed here. */
export interface PodMetricsApi {
  /** The scale subresource: spec.replicas and status.selector (a label selector string). */
  scale(ref: KubernetesScaleTargetRef, signal: AbortSignal): Promise<{ replicas: number; selector: string }>;
  /** `GET /api/v1/namespaces/{ns}/pods?labelSelector=…`: its items. */
  pods(namespace: string, selector: string, signal: AbortSignal): Promise<unknown[]>;
  /** `GET /apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods?labelSelector=…`: its items. */
  podMetrics(namespace: string, selector: string, signal: AbortSignal): Promise<unknown[]>;
}

const keys = { resource: z.enum(['cpu', 'memory'], { error: 'expected "cpu" or "memory"' }) };

export type ResourceConfig = z.output<z.ZodObject<typeof keys>> & { targetPerReplica: number };

export const resourceKind = defineKind({
  name: 'resource',
  keys,
  checkTarget: (_config, target) => (target.targetKind === 'pool' ? [{ path: ['source'], message: '"resource" reads pods\' CPU or memory: not allowed on a Pool target (use azureMonitor\'s Percentage CPU)' }] : []),
  traits: { delivery: 'polled', holdsWork: false, sampling: 'total', metricType: { default: 'total', fixed: true } },
  open: (config, ports) => ({ read: (signal) => readResource({ ...config, targetPerReplica: (config as { targetPerReplica?: number }).targetPerReplica ?? 0 }, ports, signal) }),
  describe: (config) => `resource ${config.resource} utilization of the pods' requests`,
  grants: (_config, target) => (target.kind === 'kubernetes' ? [podGrant(target), metricsGrant(target), scaleGrant(target)] : []),
});

const namespaceOf = (target: Extract<SourceTargetRef, { kind: 'kubernetes' }>) => target.ref.namespace;

/** get/list on the pods of the target's namespace, in the core group or metrics.k8s.io. */
const podsRole = (apiGroup: string, why: string) => (target: Extract<SourceTargetRef, { kind: 'kubernetes' }>) => ({
  kind: 'kubernetesRole' as const,
  apiGroup,
  resources: ['pods'],
  verbs: ['get', 'list'],
  namespace: namespaceOf(target),
  why,
});
const podGrant = podsRole('', 'the resource source lists the pods of the scale\'s selector (their requests and readiness)');
const metricsGrant = podsRole('metrics.k8s.io', 'the resource source reads the pods\' CPU and memory use from metrics.k8s.io');

/** The pods' selector is the scale subresource's: a Deployment's or StatefulSet's /scale is read here too. */
const scaleGrant = (target: Extract<SourceTargetRef, { kind: 'kubernetes' }>) => {
  const { group: apiGroup, plural } = resourceOf(target.ref);
  return { kind: 'kubernetesRole' as const, apiGroup, resources: [`${plural}/scale`], verbs: ['get'], namespace: namespaceOf(target), why: 'the resource source finds the pods by the scale subresource\'s selector' };
};

export async function readResource(config: ResourceConfig, ports: Pick<SourcePorts, 'kubernetes' | 'target' | 'now'>, signal: AbortSignal): Promise<SourceReading> {
  const ref = ports.target.ref;
  if (ref.kind !== 'kubernetes' || !ports.kubernetes) return { ok: false, error: `resource ${config.resource}: no Kubernetes client for target ${ports.target.name}` };
  const where = `resource ${config.resource} of ${ref.ref.name}`;
  const both = AbortSignal.any([signal, AbortSignal.timeout(RESOURCE_TIMEOUT_MS)]);
  try {
    const api = (await ports.kubernetes()) as PodMetricsApi;
    const scale = await api.scale(ref.ref, both);
    const namespace = ref.ref.namespace;
    const [pods, metrics] = await Promise.all([api.pods(namespace, scale.selector, both), api.podMetrics(namespace, scale.selector, both)]);
    if (pods.length > MAX_PODS || metrics.length > MAX_PODS) return { ok: false, error: `${where}: more than ${MAX_PODS} pods match ${scale.selector}` };
    const answer = resourceReplicas({
      resource: config.resource,
      targetUtilization: config.targetPerReplica,
      currentReplicas: scale.replicas,
      pods: pods.map((p) => podFactsOf(p, config.resource)),
      usage: usageOf(metrics, config.resource),
      now: ports.now(),
    });
    return answer.ok ? { ok: true, value: answer.replicas * config.targetPerReplica } : { ok: false, error: `${where}: ${answer.error}` };
  } catch (error) {
    return { ok: false, error: `${where}: ${both.aborted && !signal.aborted ? `no answer within ${RESOURCE_TIMEOUT_MS} ms` : errorMessage(error)}` };
  }
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A time as JSON gives it (RFC 3339 text) or as client-node's models do (a Date). */
const time = (v: unknown) => {
  const ms = v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
};

/** A pod as the calculator reads it: phase, deletion, start, Ready condition, each container's request (sidecars too). */
export function podFactsOf(pod: unknown, resource: ResourceName): PodFacts {
  const { metadata, spec, status } = obj(pod) as { metadata?: Json; spec?: Json; status?: Json };
  const condition = list(obj(status).conditions).map(obj).find((c) => c.type === 'Ready');
  const since = time(condition?.lastTransitionTime);
  const requestOf = (c: Json): ContainerRequest => {
    const text = obj(obj(c.resources).requests)[resource];
    return { name: String(c.name), request: typeof text === 'string' || typeof text === 'number' ? parseQuantity(String(text), resource) : undefined };
  };
  // Restartable init containers (sidecars) run beside the app and count towards its request.
  const sidecars = list(obj(spec).initContainers).map(obj).filter((c) => c.restartPolicy === 'Always');
  const phase = String(obj(status).phase ?? 'Unknown');
  return {
    name: String(obj(metadata).name),
    phase: (['Pending', 'Running', 'Succeeded', 'Failed'].includes(phase) ? phase : 'Unknown') as PodFacts['phase'],
    deleting: obj(metadata).deletionTimestamp != null,
    startedAt: time(obj(status).startTime),
    ready: condition && since !== undefined ? { status: condition.status === 'True', since } : undefined,
    containers: [...list(obj(spec).containers).map(obj), ...sidecars].map(requestOf),
  };
}

/** Each pod's use from metrics.k8s.io PodMetrics: the sum over its containers. */
export function usageOf(items: unknown[], resource: ResourceName): Map<string, PodUsage> {
  const usage = new Map<string, PodUsage>();
  for (const item of items.map(obj)) {
    const at = time(item.timestamp);
    const containers = list(item.containers).map(obj);
    const values = containers.map((c) => parseQuantity(String(obj(c.usage)[resource] ?? ''), resource));
    if (at === undefined || containers.length === 0 || values.some((v) => v === undefined)) continue;
    usage.set(String(obj(item.metadata).name), { value: values.reduce((a, b) => a! + b!, 0)!, at, windowMs: durationMs(item.window) });
  }
  return usage;
}

const SUFFIX: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };

/** A Kubernetes quantity in millicores (cpu) or bytes (memory); undefined when it is not one. */
export function parseQuantity(text: string, resource: ResourceName): number | undefined {
  const m = /^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e([+-]?[0-9]+))?(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(text.trim());
  if (!m) return undefined;
  const value = Number(m[1]) * 10 ** Number(m[2] ?? 0) * SUFFIX[m[3] ?? '']!;
  return resource === 'cpu' ? value * 1000 : value;
}

/** metrics.k8s.io's `window` ("30s", "1m0s", "15.5s"); absent or odd: HPA's usual 30 s. */
function durationMs(window: unknown): number {
  const m = typeof window === 'string' ? /^(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(window) : null;
  if (!m || (!m[1] && !m[2])) return 30_000;
  return Number(m[1] ?? 0) * 60_000 + Number(m[2] ?? 0) * 1000;
}
