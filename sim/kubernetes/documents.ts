/**
 * The JSON the simulator serves, shaped as the API server's: zero-valued `omitempty` fields are
 * left out (a Scale of 0 replicas has an empty spec), while a workload's spec.replicas, a
 * pointer upstream, is present whenever set.
 */
import type { SimObject } from './store.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

function metadata(o: SimObject): JsonObject {
  return {
    name: o.resource.name,
    namespace: o.resource.namespace,
    uid: o.uid,
    resourceVersion: String(o.resourceVersion),
    generation: o.generation,
  };
}

function omitZero(fields: Record<string, number | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(fields)) if (value) out[key] = value;
  return out;
}

export function objectDocument(o: SimObject): JsonObject {
  const labels = { app: o.resource.name };
  const spec: JsonObject = {};
  if (o.specReplicas !== undefined) spec.replicas = o.specReplicas;
  if (o.kind === 'Deployment' || o.kind === 'StatefulSet') {
    spec.selector = { matchLabels: labels };
    spec.template = { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'drover.example/app' }] } };
    if (o.kind === 'StatefulSet') spec.serviceName = o.resource.name;
  }
  return {
    apiVersion: `${o.resource.group}/${o.resource.version}`,
    kind: o.kind,
    metadata: metadata(o),
    spec,
    status: {
      observedGeneration: o.generation,
      ...omitZero({ replicas: o.readyReplicas, readyReplicas: o.readyReplicas, availableReplicas: o.readyReplicas }),
    },
  };
}

export function scaleDocument(o: SimObject): JsonObject {
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: metadata(o),
    spec: omitZero({ replicas: o.specReplicas }),
    // `status.replicas` is required (ScaleStatus has no omitempty on it): 0 is sent as 0.
    status: { replicas: o.readyReplicas, selector: `app=${o.resource.name}` },
  };
}

export function statusDocument(code: number, reason: string, message: string): JsonObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}
