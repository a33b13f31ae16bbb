/**
 * The pods and their metrics the simulator serves for the `resource` load source: a namespace's
 * pods (`GET /api/v1/namespaces/{ns}/pods`) and metrics-server's PodMetrics
 * (`GET /apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods`), each listed by an equality-based
 * `labelSelector` (`app=web,tier=front`), as the scale subresource's `status.selector` gives it.
 * The documents are given as the API server and metrics-server would send them.
 */
import type { Json, JsonObject } from './documents.js';

const PODS = /^\/api\/v1\/namespaces\/([^/]+)\/pods$/;
const POD_METRICS = /^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/([^/]+)\/pods$/;

export type PodListOperation = 'listPods' | 'listPodMetrics';

export class SimPods {
  private readonly pods = new Map<string, JsonObject[]>();
  private readonly metrics = new Map<string, JsonObject[]>();

  /** Replaces a namespace's pods and their PodMetrics (a pod without one has no metrics). */
  set(namespace: string, pods: JsonObject[], metrics: JsonObject[]): void {
    this.pods.set(namespace, pods);
    this.metrics.set(namespace, metrics);
  }

  /** The list a GET asks for, or undefined when the path is not a pod listing. */
  route(method: string, url: URL): { op: PodListOperation; status: number; body: JsonObject } | undefined {
    const pods = PODS.exec(url.pathname);
    const metrics = POD_METRICS.exec(url.pathname);
    const match = pods ?? metrics;
    if (!match || method !== 'GET') return undefined;
    const select = selectorOf(url.searchParams.get('labelSelector') ?? '');
    const items = ((pods ? this.pods : this.metrics).get(match[1]!) ?? []).filter((item) => select(labelsOf(item)));
    const body: JsonObject = pods
      ? { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items }
      : { kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {}, items };
    return { op: pods ? 'listPods' : 'listPodMetrics', status: 200, body };
  }
}

function labelsOf(item: JsonObject): Record<string, Json> {
  const metadata = item.metadata as JsonObject | undefined;
  return (metadata?.labels as Record<string, Json> | undefined) ?? {};
}

function selectorOf(text: string): (labels: Record<string, Json>) => boolean {
  const pairs = text.split(',').filter(Boolean).map((term) => term.split('=') as [string, string]);
  return (labels) => pairs.every(([key, value]) => labels[key] === value);
}
