/**
 * ScaleTargetApi on @kubernetes/client-node.
 *
 * A Deployment or StatefulSet is read as the object itself: its spec.replicas is present even at
 * 0 and its status has readyReplicas, whereas the Scale subresource drops a zero spec.replicas
 * (it is `omitempty` there) and would make a target at zero read as "unset", i.e. 1. Other
 * resources are known only through their Scale, where an absent replicas field therefore means 0.
 *
 * Writes always go to the Scale subresource as a JSON patch with `add`, which sets the field
 * whether or not the API server serialised it (a `replace` fails on a Scale at 0).
 */
import {
  ApiException,
  AppsV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { RateLimitedError } from '../errors/rate-limited.js';
import { parseRetryAfter } from '../azure/throttle.js';
import { KubernetesRequestError, TargetConflictError, TargetNotFoundError } from './errors.js';
import type { ObservedScale, ScaleTargetApi } from './scale-target-api.js';
import { describeRef, isWorkloadRef, type KubernetesScaleTargetRef, type WorkloadRef } from './scale-target-ref.js';

interface ScaleBody {
  spec?: { replicas?: number };
  status?: { replicas?: number };
}

export class KubernetesScaleTargets implements ScaleTargetApi {
  private readonly apps: AppsV1Api;
  private readonly custom: CustomObjectsApi;

  constructor(kubeConfig: KubeConfig) {
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  readScale(ref: KubernetesScaleTargetRef): Promise<ObservedScale> {
    return translateErrors(ref, 'read the scale of', async () => {
      if (isWorkloadRef(ref)) {
        const params = workloadParams(ref);
        const workload =
          ref.kind === 'Deployment'
            ? await this.apps.readNamespacedDeployment(params)
            : await this.apps.readNamespacedStatefulSet(params);
        return withSpec(workload.spec?.replicas, workload.status?.readyReplicas ?? 0);
      }
      const scale = (await this.custom.getNamespacedCustomObjectScale({ ...ref })) as ScaleBody;
      return withSpec(scale.spec?.replicas ?? 0, scale.status?.replicas ?? 0);
    });
  }

  patchScale(ref: KubernetesScaleTargetRef, replicas: number): Promise<void> {
    const body = [{ op: 'add', path: '/spec/replicas', value: replicas }];
    const options = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
    return translateErrors(ref, 'patch the scale of', async () => {
      if (!isWorkloadRef(ref)) {
        await this.custom.patchNamespacedCustomObjectScale({ ...ref, body }, options);
      } else if (ref.kind === 'Deployment') {
        await this.apps.patchNamespacedDeploymentScale({ ...workloadParams(ref), body }, options);
      } else {
        await this.apps.patchNamespacedStatefulSetScale({ ...workloadParams(ref), body }, options);
      }
    });
  }
}

function withSpec(specReplicas: number | undefined, readyReplicas: number): ObservedScale {
  return specReplicas === undefined ? { readyReplicas } : { specReplicas, readyReplicas };
}

function workloadParams(ref: WorkloadRef): { namespace: string; name: string } {
  if (ref.apiVersion !== undefined && ref.apiVersion !== 'apps/v1') {
    throw new Error(`scaleTargetRef.apiVersion: expected apps/v1 for a ${ref.kind}, got ${JSON.stringify(ref.apiVersion)}`);
  }
  return { namespace: ref.namespace, name: ref.name };
}

async function translateErrors<T>(ref: KubernetesScaleTargetRef, action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const target = describeRef(ref);
    const code = error instanceof ApiException ? (error as ApiException<unknown>).code : undefined;
    if (code === 404) throw new TargetNotFoundError(target, { cause: error });
    if (code === 409) throw new TargetConflictError(target, { cause: error });
    if (code === 429) throw new RateLimitedError('kubernetes', target, retryAfterOf(error), { cause: error });
    throw new KubernetesRequestError(`failed to ${action} ${target}: ${reason(error)}`, code, { cause: error });
  }
}

/** Retry-After of a 429, in ms; 0 when absent. */
function retryAfterOf(error: unknown): number {
  const headers = (error as ApiException<unknown>).headers as Record<string, string | undefined> | undefined;
  return parseRetryAfter(headers?.['retry-after'] ?? headers?.['Retry-After'], Date.now());
}

/** The API server's own message when it sent a Status, else the error's. */
function reason(error: unknown): string {
  if (error instanceof ApiException) {
    const body: unknown = (error as ApiException<unknown>).body;
    const parsed: unknown = typeof body === 'string' ? safeParse(body) : body;
    const message = (parsed as { message?: unknown } | undefined)?.message;
    return `HTTP ${(error as ApiException<unknown>).code}${typeof message === 'string' ? `: ${message}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
