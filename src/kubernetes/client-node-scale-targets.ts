/**
 * ScaleTargetApi on @kubernetes/client-node.
 *
 * A Deployment or StatefulSet is read as the object itself: its spec.replicas is present even at
 * 0 and its status has readyReplicas, whereas the Scale subresource drops a zero spec.replicas
 * (it is `omitempty` there) and would make a target at zero read as "unset", i.e. 1. Other
 * resources are known only through their Scale, where an absent replicas field therefore means 0.
 *
 * Writes always go to the Scale subresource as a JSON patch with `add`, which sets the field
 * whether or not the API server serialised it (a `replace` fails on a Scale at 0), preceded by
 * the precondition: a `test` of spec.replicas (the API server answers 422 when it fails), or an
 * `add` of metadata.resourceVersion, which makes the update conditional on it (409 when stale).
 * Both come back as ConflictError: another writer changed the target since it was read.
 */
import {
  ApiException,
  AppsV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  Observable,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type KubeConfig,
} from '@kubernetes/client-node';
import { callDeadline, reasonOf, TimeoutError, type CallDeadline } from '../deadline.js';
import { RateLimitedError } from '../errors/rate-limited.js';
import { parseRetryAfter } from '../azure/throttle.js';
import { KubernetesRequestError, TargetConflictError, TargetNotFoundError } from './errors.js';
import type { KubernetesCallOptions, ObservedScale, ScalePrecondition, ScaleTargetApi } from './scale-target-api.js';
import { describeRef, isWorkloadRef, type KubernetesScaleTargetRef, type WorkloadRef } from './scale-target-ref.js';

const PATCH = 'patch the scale of';

interface ScaleBody {
  metadata?: { resourceVersion?: string };
  spec?: { replicas?: number };
  status?: { replicas?: number };
}

/** Per request, when the configuration gives none (kubernetes.requestTimeout). */
export const DEFAULT_KUBERNETES_REQUEST_TIMEOUT_MS = 10_000;

export class KubernetesScaleTargets implements ScaleTargetApi {
  private readonly apps: AppsV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly requestTimeoutMs: number;

  constructor(kubeConfig: KubeConfig, options: { requestTimeoutMs?: number } = {}) {
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_KUBERNETES_REQUEST_TIMEOUT_MS;
  }

  readScale(ref: KubernetesScaleTargetRef, call: KubernetesCallOptions = {}): Promise<ObservedScale> {
    const deadline = callDeadline(this.requestTimeoutMs, call.signal);
    const options = signalOptions(deadline.signal);
    return translateErrors(ref, 'read the scale of', deadline, async () => {
      if (isWorkloadRef(ref)) {
        const params = workloadParams(ref);
        const workload =
          ref.kind === 'Deployment'
            ? await this.apps.readNamespacedDeployment(params, options)
            : await this.apps.readNamespacedStatefulSet(params, options);
        return withSpec(workload.spec?.replicas, workload.status?.readyReplicas ?? 0, workload.metadata?.resourceVersion);
      }
      const scale = (await this.custom.getNamespacedCustomObjectScale({ ...ref }, options)) as ScaleBody;
      return withSpec(scale.spec?.replicas ?? 0, scale.status?.replicas ?? 0, scale.metadata?.resourceVersion);
    });
  }

  patchScale(
    ref: KubernetesScaleTargetRef,
    replicas: number,
    precondition: ScalePrecondition,
    call: KubernetesCallOptions = {},
  ): Promise<void> {
    const fence =
      precondition.kind === 'replicas'
        ? { op: 'test', path: '/spec/replicas', value: precondition.replicas }
        : { op: 'add', path: '/metadata/resourceVersion', value: precondition.resourceVersion };
    const body = [fence, { op: 'add', path: '/spec/replicas', value: replicas }];
    const deadline = callDeadline(this.requestTimeoutMs, call.signal);
    const options = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch, signalOptions(deadline.signal));
    return translateErrors(ref, PATCH, deadline, async () => {
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

function withSpec(specReplicas: number | undefined, readyReplicas: number, resourceVersion: string | undefined): ObservedScale {
  return { ...(specReplicas === undefined ? {} : { specReplicas }), readyReplicas, ...(resourceVersion ? { resourceVersion } : {}) };
}

function workloadParams(ref: WorkloadRef): { namespace: string; name: string } {
  if (ref.apiVersion !== undefined && ref.apiVersion !== 'apps/v1') {
    throw new Error(`scaleTargetRef.apiVersion: expected apps/v1 for a ${ref.kind}, got ${JSON.stringify(ref.apiVersion)}`);
  }
  return { namespace: ref.namespace, name: ref.name };
}

/** The client's own hook for a request's signal: a middleware that sets it on the request. */
export function signalOptions(signal: AbortSignal): ConfigurationOptions<ObservableMiddleware> {
  const setSignal: ObservableMiddleware = {
    pre: (context) => {
      context.setSignal(signal);
      return new Observable(Promise.resolve(context));
    },
    post: (response) => new Observable(Promise.resolve(response)),
  };
  return { middleware: [setSignal], middlewareMergeStrategy: 'append' };
}

async function translateErrors<T>(ref: KubernetesScaleTargetRef, action: string, deadline: CallDeadline, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const target = describeRef(ref);
    if (deadline.timedOut()) {
      const timeout = new TimeoutError(`the request to ${action} ${target}`, deadline.timeoutMs);
      throw new KubernetesRequestError(`failed to ${action} ${target}: ${timeout.message}`, undefined, { cause: timeout });
    }
    if (deadline.signal.aborted) {
      throw new KubernetesRequestError(`failed to ${action} ${target}: ${reasonOf(deadline.signal).message}`, undefined, { cause: reasonOf(deadline.signal) });
    }
    const code = error instanceof ApiException ? (error as ApiException<unknown>).code : undefined;
    if (code === 404) throw new TargetNotFoundError(target, { cause: error });
    // Scale patches carry only a precondition and a replica count ≥ 0: a 422 is their failed test.
    if (code === 409 || (code === 422 && action === PATCH)) throw new TargetConflictError(target, { cause: error });
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
