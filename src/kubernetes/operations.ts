/**
 * Every Kubernetes API call the scale target adapter makes (client-node-scale-targets.ts), with
 * the RBAC rule it needs and, where Azure RBAC for Kubernetes can express it, the data action.
 * The namespaced Role of scripts/kubernetes-rbac.mjs and the Azure custom role in
 * infra/roles.json are held to this list by test/infra/least-privilege.test.ts.
 *
 * Drover reads a Deployment or StatefulSet as the object (its spec.replicas survives 0) and
 * writes only its scale subresource; other resources are read and written through /scale only.
 * It never lists, watches, creates or deletes, and never touches another kind.
 */

export interface KubernetesOperation {
  /** The client-node method, as the adapter calls it: `apps.<method>` or `custom.<method>`. */
  call: string;
  /** API group and resource as an RBAC rule names them; `{plural}` is a resource the configuration names. */
  apiGroup: 'apps' | '{group}';
  resource: string;
  verb: 'get' | 'patch';
  /** Azure RBAC for Kubernetes: the data action, or undefined when it cannot name the resource. */
  dataAction: string | undefined;
}

const AKS = 'Microsoft.ContainerService/managedClusters';

export const KUBERNETES_OPERATIONS: readonly KubernetesOperation[] = [
  { call: 'apps.readNamespacedDeployment', apiGroup: 'apps', resource: 'deployments', verb: 'get', dataAction: `${AKS}/apps/deployments/read` },
  { call: 'apps.readNamespacedStatefulSet', apiGroup: 'apps', resource: 'statefulsets', verb: 'get', dataAction: `${AKS}/apps/statefulsets/read` },
  // Azure RBAC ignores the subresource: a scale patch is checked as a write of the object itself.
  { call: 'apps.patchNamespacedDeploymentScale', apiGroup: 'apps', resource: 'deployments/scale', verb: 'patch', dataAction: `${AKS}/apps/deployments/write` },
  { call: 'apps.patchNamespacedStatefulSetScale', apiGroup: 'apps', resource: 'statefulsets/scale', verb: 'patch', dataAction: `${AKS}/apps/statefulsets/write` },
  { call: 'custom.getNamespacedCustomObjectScale', apiGroup: '{group}', resource: '{plural}/scale', verb: 'get', dataAction: undefined },
  { call: 'custom.patchNamespacedCustomObjectScale', apiGroup: '{group}', resource: '{plural}/scale', verb: 'patch', dataAction: undefined },
];
