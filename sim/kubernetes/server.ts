/**
 * A Kubernetes API simulator over plain HTTP, speaking the subset Drover uses: GET of
 * Deployments, StatefulSets and other namespaced resources, and GET / PATCH of their /scale
 * subresource (JSON Patch and merge patch), with API-server-shaped Status errors. The real
 * @kubernetes/client-node talks to it through `kubeconfigOptions()` / `kubeconfigYaml()`; plain
 * HTTP needs `skipTLSVerify: true` there.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { systemClock, type Clock } from '../../src/clock.js';
import type { KubernetesScaleTargetRef } from '../../src/kubernetes/scale-target-ref.js';
import { objectDocument, scaleDocument, statusDocument, type Json, type JsonObject } from './documents.js';
import { applyJsonPatch, applyMergePatch, InvalidPatchError, replicasOf } from './patch.js';
import { markFault, recorded, type RecordedService } from '../recorder.js';
import { SimObjectStore, type SimObject, type SimObjectInit } from './store.js';
import { SimPods, type PodListOperation } from './pods.js';

export type SimOperation = 'get' | 'getScale' | 'patchScale' | PodListOperation;

export interface RecordedRequest {
  op: SimOperation | 'other';
  method: string;
  path: string;
  contentType?: string;
  authorization?: string;
  body?: Json;
  status: number;
}

export interface KubernetesSimOptions {
  clock?: Clock;
  /** Default time for ready replicas to follow a new spec; 0 = at once. */
  readyDelayMs?: number;
  /** Record every exchange here for the API check (sim/recorder.ts). Default: `DROVER_RECORD_DIR`. */
  recordDir?: string;
  /** Answers as some real API servers send them, outside the specification (recorded as faults). */
  quirks?: SimQuirks;
}

export interface SimQuirks {
  /** Every successful answer, and its `spec` and `status`, also carries fields no specification names. */
  unknownFields?: boolean;
  /** A Scale is sent without `status.replicas` (required by the specification, left out by some servers). */
  scaleWithoutStatusReplicas?: boolean;
}

/** metrics.k8s.io has no specification here (out of the API check); the rest is the Kubernetes API's. */
function serviceOf(req: http.IncomingMessage): RecordedService {
  return (req.url ?? '').startsWith('/apis/metrics.k8s.io/') ? 'metrics.k8s.io' : 'kubernetes';
}

const UNKNOWN_FIELDS = { droverUnknownField: 'a field a newer API server might add', droverUnknownObject: { nested: [1, 2] } };

/** `answer` as the quirks change it, with the fault's name when they did. */
function withQuirks(answer: Answer, quirks: SimQuirks): { answer: Answer; fault?: string } {
  const body = answer.body as JsonObject;
  if (answer.status >= 300 || typeof body !== 'object' || body === null || Array.isArray(body)) return { answer };
  let out: JsonObject = body;
  const faults: string[] = [];
  if (quirks.scaleWithoutStatusReplicas && out.kind === 'Scale' && typeof out.status === 'object' && out.status !== null) {
    const { replicas: _left, ...status } = out.status as JsonObject;
    out = { ...out, status };
    faults.push('Scale without status.replicas (quirks)');
  }
  if (quirks.unknownFields) {
    const extend = (value: Json | undefined) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value, ...UNKNOWN_FIELDS } : value);
    out = { ...out, ...UNKNOWN_FIELDS, ...('spec' in out ? { spec: extend(out.spec)! } : {}), ...('status' in out ? { status: extend(out.status)! } : {}) };
    faults.push('unknown fields (quirks)');
  }
  return faults.length === 0 ? { answer } : { answer: { ...answer, body: out }, fault: faults.join(', ') };
}

/** What `KubeConfig.loadFromOptions` takes. */
export interface SimKubeConfigOptions {
  clusters: { name: string; server: string; skipTLSVerify: boolean }[];
  users: { name: string; token?: string }[];
  contexts: { name: string; cluster: string; user: string }[];
  currentContext: string;
}

export interface ObservedSimObject {
  specReplicas: number | undefined;
  readyReplicas: number;
  resourceVersion: number;
}

export interface KubernetesSim {
  readonly url: string;
  /** Default delay for ready replicas to follow spec, for objects added without their own. */
  readyDelayMs: number;
  add(ref: KubernetesScaleTargetRef, init?: SimObjectInit): void;
  remove(ref: KubernetesScaleTargetRef): void;
  /** Current state, readiness brought up to the clock; undefined when missing. */
  inspect(ref: KubernetesScaleTargetRef): ObservedSimObject | undefined;
  setReadyReplicas(ref: KubernetesScaleTargetRef, ready: number): void;
  /** A namespace's pods and their metrics.k8s.io PodMetrics, as the API server and metrics-server send them. */
  setPods(namespace: string, pods: JsonObject[], metrics: JsonObject[]): void;
  /** The next request of `op` is answered with this status and a Status body. */
  failNext(op: SimOperation, status: number, message?: string): void;
  count(op: SimOperation): number;
  readonly requests: readonly RecordedRequest[];
  resetCounters(): void;
  kubeconfigOptions(user?: { token?: string }): SimKubeConfigOptions;
  kubeconfigYaml(user?: { token?: string }): string;
  close(): Promise<void>;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed',
  409: 'Conflict', 415: 'UnsupportedMediaType', 422: 'Invalid', 429: 'TooManyRequests', 500: 'InternalError',
};

const PATH = /^\/apis\/([^/]+)\/([^/]+)\/namespaces\/([^/]+)\/([^/]+)\/([^/]+)(\/scale)?$/;

interface Answer {
  status: number;
  body: JsonObject;
}

function resourceVersionOf(document: Json): string | undefined {
  const metadata = typeof document === 'object' && document !== null && !Array.isArray(document) ? document.metadata : undefined;
  const version = typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? metadata.resourceVersion : undefined;
  return typeof version === 'string' ? version : undefined;
}

function failure(status: number, message: string): Answer {
  return { status, body: statusDocument(status, REASONS[status] ?? 'Unknown', message) };
}

export async function startKubernetesSim(options: KubernetesSimOptions = {}): Promise<KubernetesSim> {
  const store = new SimObjectStore(options.clock ?? systemClock, options.readyDelayMs ?? 0);
  const counts: Record<SimOperation, number> = { get: 0, getScale: 0, patchScale: 0, listPods: 0, listPodMetrics: 0 };
  const pods = new SimPods();
  const injected = new Map<SimOperation, Answer>();
  const requests: RecordedRequest[] = [];

  function handle(op: SimOperation, object: SimObject | undefined, what: string, contentType: string, body: Json | undefined): Answer {
    const forced = injected.get(op);
    if (forced) {
      injected.delete(op);
      return forced;
    }
    if (!object) return failure(404, `${what} not found`);
    if (op === 'get') return { status: 200, body: objectDocument(object) };
    if (op === 'getScale') return { status: 200, body: scaleDocument(object) };
    let patched: Json;
    try {
      if (contentType === 'application/json-patch+json') patched = applyJsonPatch(scaleDocument(object), body);
      else if (contentType === 'application/merge-patch+json' || contentType === 'application/strategic-merge-patch+json') {
        patched = applyMergePatch(scaleDocument(object), body ?? null);
      } else return failure(415, `unsupported patch content type ${JSON.stringify(contentType)}`);
      // As the API server: a resourceVersion in the patched object makes the update conditional on it.
      if (resourceVersionOf(patched) !== String(object.resourceVersion)) {
        return failure(409, `Operation cannot be fulfilled on ${what}: the object has been modified; please apply your changes to the latest version and try again`);
      }
      store.setSpecReplicas(object, replicasOf(patched));
    } catch (error) {
      if (error instanceof InvalidPatchError) return failure(422, `${what}: ${error.message}`);
      throw error;
    }
    return { status: 200, body: scaleDocument(object) };
  }

  function route(method: string, url: URL, contentType: string, body: Json | undefined): [SimOperation | 'other', Answer] {
    const path = url.pathname;
    const listed = pods.route(method, url);
    if (listed) {
      counts[listed.op]++;
      const forced = injected.get(listed.op);
      injected.delete(listed.op);
      return [listed.op, forced ?? listed];
    }
    const match = PATH.exec(path);
    if (!match) return ['other', failure(404, `the simulator does not serve ${path}`)];
    const [, group = '', version = '', namespace = '', plural = '', name = '', scale] = match;
    const op: SimOperation | undefined =
      method === 'GET' ? (scale ? 'getScale' : 'get') : method === 'PATCH' && scale ? 'patchScale' : undefined;
    if (!op) return ['other', failure(405, `${method} ${path} is not served by the simulator`)];
    counts[op]++;
    const object = store.get({ group, version, plural, namespace, name });
    return [op, handle(op, object, `${plural}.${group} "${name}" in namespace "${namespace}"`, contentType, body)];
  }

  const server = http.createServer(recorded(serviceOf, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://sim');
      const path = url.pathname;
      const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Json | undefined;
      let op: SimOperation | 'other' = 'other';
      let answer: Answer;
      try {
        body = text ? (JSON.parse(text) as Json) : undefined;
        [op, answer] = route(req.method ?? 'GET', url, contentType, body);
      } catch (error) {
        answer = failure(error instanceof SyntaxError ? 400 : 500, error instanceof Error ? error.message : String(error));
      }
      requests.push({
        op, method: req.method ?? 'GET', path, status: answer.status,
        ...(contentType ? { contentType } : {}),
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        ...(body !== undefined ? { body } : {}),
      });
      const sent = options.quirks ? withQuirks(answer, options.quirks) : { answer };
      if (sent.fault) markFault(res, sent.fault);
      res.writeHead(sent.answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(sent.answer.body));
    });
  }, options.recordDir));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function existing(ref: KubernetesScaleTargetRef): SimObject {
    const object = store.get(ref);
    if (!object) throw new Error(`simulator has no ${JSON.stringify(ref)}`);
    return object;
  }

  const kubeconfigOptions = (user: { token?: string } = {}): SimKubeConfigOptions => ({
    clusters: [{ name: 'drover-sim', server: url, skipTLSVerify: true }],
    users: [{ name: 'drover-sim', ...(user.token ? { token: user.token } : {}) }],
    contexts: [{ name: 'drover-sim', cluster: 'drover-sim', user: 'drover-sim' }],
    currentContext: 'drover-sim',
  });

  return {
    url,
    get readyDelayMs() {
      return store.readyDelayMs;
    },
    set readyDelayMs(ms) {
      store.readyDelayMs = ms;
    },
    add: (ref, init) => void store.add(ref, init),
    remove: (ref) => void store.remove(ref),
    inspect(ref) {
      const o = store.get(ref);
      return o && { specReplicas: o.specReplicas, readyReplicas: o.readyReplicas, resourceVersion: o.resourceVersion };
    },
    setReadyReplicas: (ref, ready) => store.setReadyReplicas(existing(ref), ready),
    setPods: (namespace, list, metrics) => pods.set(namespace, list, metrics),
    failNext(op, status, message = `injected failure for ${op}`) {
      injected.set(op, failure(status, message));
    },
    count: (op) => counts[op],
    requests,
    resetCounters() {
      for (const op of Object.keys(counts) as SimOperation[]) counts[op] = 0;
      requests.length = 0;
    },
    kubeconfigOptions,
    kubeconfigYaml(user = {}) {
      const o = kubeconfigOptions(user);
      return stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: o.clusters.map(({ name, server, skipTLSVerify }) => ({
          name,
          cluster: { server, 'insecure-skip-tls-verify': skipTLSVerify },
        })),
        users: o.users.map(({ name, token }) => ({ name, user: token ? { token } : {} })),
        contexts: o.contexts.map(({ name, cluster, user: u }) => ({ name, context: { cluster, user: u } })),
        'current-context': o.currentContext,
      });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
