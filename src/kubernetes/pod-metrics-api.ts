/**
 * What the `resource` load source reads of a cluster (load/resource-source.ts PodMetricsApi),
 * over @kubernetes/client-node: the scale subresource (its spec.replicas and status.selector),
 * the pods of that selector, and their PodMetrics from metrics.k8s.io. Only reads; its rules
 * (get and list on pods and pods.metrics.k8s.io, get on the target's /scale) come from the
 * kind's `grants`.
 */
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { PodMetricsApi } from '../load/resource-source.js';
import { signalOptions } from './client-node-scale-targets.js';
import { isWorkloadRef } from './scale-target-ref.js';

type ScaleBody = { spec?: { replicas?: number }; status?: { selector?: string } };

export function podMetricsApi(kubeConfig: KubeConfig): PodMetricsApi {
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  return {
    async scale(ref, signal) {
      const options = signalOptions(signal);
      let scale: ScaleBody;
      if (isWorkloadRef(ref)) {
        const params = { name: ref.name, namespace: ref.namespace };
        scale = ref.kind === 'Deployment' ? await apps.readNamespacedDeploymentScale(params, options) : await apps.readNamespacedStatefulSetScale(params, options);
      } else {
        scale = (await custom.getNamespacedCustomObjectScale({ ...ref }, options)) as ScaleBody;
      }
      const selector = scale.status?.selector;
      if (!selector) throw new Error('its scale subresource has no status.selector');
      return { replicas: scale.spec?.replicas ?? 0, selector };
    },
    async pods(namespace, labelSelector, signal) {
      return (await core.listNamespacedPod({ namespace, labelSelector }, signalOptions(signal))).items;
    },
    async podMetrics(namespace, labelSelector, signal) {
      const list = (await custom.listNamespacedCustomObject({ group: 'metrics.k8s.io', version: 'v1beta1', namespace, plural: 'pods', labelSelector }, signalOptions(signal))) as { items?: unknown[] };
      return list.items ?? [];
    },
  };
}
