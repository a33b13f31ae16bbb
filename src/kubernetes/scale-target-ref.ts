/**
 * How a configuration names a Kubernetes scale target: a Deployment or StatefulSet by kind, or
 * any resource that has a /scale subresource by group, version and plural.
 */

export type WorkloadKind = 'Deployment' | 'StatefulSet';

export interface WorkloadRef {
  kind: WorkloadKind;
  namespace: string;
  name: string;
  /** Only apps/v1 is served; given for symmetry with Kubernetes' own references. */
  apiVersion?: string;
}

export interface ScalableResourceRef {
  group: string;
  version: string;
  plural: string;
  namespace: string;
  name: string;
}

export type KubernetesScaleTargetRef = WorkloadRef | ScalableResourceRef;

export function isWorkloadRef(ref: KubernetesScaleTargetRef): ref is WorkloadRef {
  return 'kind' in ref;
}

const PLURALS: Record<WorkloadKind, string> = { Deployment: 'deployments', StatefulSet: 'statefulsets' };

/** The group/version/plural form of any reference (Deployments are apps/v1 deployments). */
export function resourceOf(ref: KubernetesScaleTargetRef): ScalableResourceRef {
  if (!isWorkloadRef(ref)) return ref;
  return { group: 'apps', version: 'v1', plural: PLURALS[ref.kind], namespace: ref.namespace, name: ref.name };
}

/** For messages: `Deployment default/web`, `widgets.example.com/v1 widgets default/w1`. */
export function describeRef(ref: KubernetesScaleTargetRef): string {
  if (isWorkloadRef(ref)) return `${ref.kind} ${ref.namespace}/${ref.name}`;
  return `${ref.group}/${ref.version} ${ref.plural} ${ref.namespace}/${ref.name}`;
}
