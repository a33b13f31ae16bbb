/**
 * Request handling of the ARM simulator: authentication, routing, request counting, scripted
 * throttling, then the compute operations of `operations.ts`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimWorld } from './model.js';
import type { OperationDeps, Reply, RequestInfo } from './operations.js';
import { deleteInstances, getScaleSet, listFlexibleVms, listUniformVms, pollOperation, writeScaleSet } from './operations.js';
import { scaleSetPower, vmPower } from './power.js';
import { armError } from './representation.js';
import { listAutoscaleSettings } from './autoscale.js';
import { markFault } from '../recorder.js';

export type ArmSimOperation = 'getScaleSet' | 'updateScaleSet' | 'listVms' | 'deleteInstances' | 'pollOperation' | 'startVms' | 'deallocateVms' | 'listAutoscaleSettings';

export interface ArmSimCounts {
  /** Every request received, including refused ones. */
  requests: number;
  getScaleSet: number;
  /** PATCH and PUT of a scale set. */
  updateScaleSet: number;
  /** Logical VM listings (first pages), both orchestration modes. */
  listVms: number;
  /** Every page of a VM listing, the first included. */
  listVmsPages: number;
  deleteInstances: number;
  pollOperation: number;
  /** Start calls: a Uniform batch, or one Flexible VM. */
  startVms: number;
  /** Deallocate calls, counted the same way. */
  deallocateVms: number;
  /** Pages of a resource group's autoscale settings list. */
  listAutoscaleSettings: number;
  /** Requests answered 429 by a `throttleNext` rule (also counted under their operation). */
  throttled: number;
  /** Requests refused for want of a bearer token. */
  unauthorized: number;
}

export function zeroCounts(): ArmSimCounts {
  return {
    requests: 0,
    getScaleSet: 0,
    updateScaleSet: 0,
    listVms: 0,
    listVmsPages: 0,
    deleteInstances: 0,
    pollOperation: 0,
    startVms: 0,
    deallocateVms: 0,
    listAutoscaleSettings: 0,
    throttled: 0,
    unauthorized: 0,
  };
}

export interface ThrottleRule {
  remaining: number;
  /** Retry-After value to send (seconds or an HTTP date); none when undefined. */
  retryAfter: string | undefined;
  /** Operations the rule applies to; all when undefined. */
  operations: readonly ArmSimOperation[] | undefined;
}

/** A scripted error answer: the next `remaining` matching requests get `status` with ARM's error body. */
export interface FailureRule {
  remaining: number;
  status: number;
  code: string;
  message: string;
  operations: readonly ArmSimOperation[] | undefined;
  /** Only the later pages of a VM listing (requests with a `$skiptoken`). */
  laterPagesOnly: boolean;
}

export interface HandlerDeps extends Omit<OperationDeps, 'baseUrl'> {
  world: SimWorld;
  counts: ArmSimCounts;
  throttles: ThrottleRule[];
  failures: FailureRule[];
  rateLimitHeaders: () => Record<string, string>;
  /** Every JSON answer also carries fields no specification names (withUnknownFields). */
  unknownFields?: boolean;
}

interface Route {
  method: string;
  pattern: string[];
  operation: ArmSimOperation;
  handle: (deps: OperationDeps, params: Record<string, string>, url: URL, req: RequestInfo) => Reply;
}

const VMSS = 'subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachineScaleSets/{name}';
const VM = 'subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachines/{vm}';
const ROUTES: Route[] = [
  { method: 'GET', pattern: split(VMSS), operation: 'getScaleSet', handle: getScaleSet },
  { method: 'PATCH', pattern: split(VMSS), operation: 'updateScaleSet', handle: writeScaleSet },
  { method: 'PUT', pattern: split(VMSS), operation: 'updateScaleSet', handle: writeScaleSet },
  { method: 'GET', pattern: split(`${VMSS}/virtualMachines`), operation: 'listVms', handle: listUniformVms },
  { method: 'POST', pattern: split(`${VMSS}/delete`), operation: 'deleteInstances', handle: deleteInstances },
  { method: 'POST', pattern: split(`${VMSS}/start`), operation: 'startVms', handle: scaleSetPower('start') },
  { method: 'POST', pattern: split(`${VMSS}/deallocate`), operation: 'deallocateVms', handle: scaleSetPower('deallocate') },
  { method: 'POST', pattern: split(`${VM}/start`), operation: 'startVms', handle: vmPower('start') },
  { method: 'POST', pattern: split(`${VM}/deallocate`), operation: 'deallocateVms', handle: vmPower('deallocate') },
  {
    method: 'GET',
    pattern: split('subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachines'),
    operation: 'listVms',
    handle: listFlexibleVms,
  },
  {
    method: 'GET',
    pattern: split('subscriptions/{sub}/providers/Microsoft.Compute/locations/{location}/operations/{id}'),
    operation: 'pollOperation',
    handle: pollOperation,
  },
  {
    method: 'GET',
    pattern: split('subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Insights/autoscalesettings'),
    operation: 'listAutoscaleSettings',
    handle: listAutoscaleSettings,
  },
];

export function createArmHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    readBody(req)
      .then((raw) => send(res, deps.unknownFields ? withUnknownFields(handle(deps, req, raw)) : handle(deps, req, raw), deps.rateLimitHeaders()))
      .catch((error: unknown) =>
        send(res, { status: 500, body: armError('InternalServerError', String(error)) }, {}),
      );
  };
}

function handle(deps: HandlerDeps, req: IncomingMessage, raw: string): Reply {
  deps.counts.requests += 1;
  if (!/^Bearer\s+\S+/i.test(req.headers.authorization ?? '')) {
    deps.counts.unauthorized += 1;
    return { status: 401, body: armError('AuthenticationFailed', 'Authentication failed. The Authorization header is missing.') };
  }
  const url = new URL(req.url ?? '/', `https://${req.headers.host ?? '127.0.0.1'}`);
  const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const match = findRoute(req.method ?? 'GET', segments);
  if (!match) return { status: 404, body: armError('NotFound', `no route for ${req.method} ${url.pathname}`) };
  const { route, params } = match;
  countRequest(deps.counts, route.operation, url);
  if (!url.searchParams.get('api-version')) {
    return { status: 400, body: armError('MissingApiVersionParameter', 'The api-version query parameter (?api-version=) is required for all requests.') };
  }
  const throttle = takeThrottle(deps.throttles, route.operation);
  if (throttle) {
    deps.counts.throttled += 1;
    return {
      status: 429,
      headers: throttle.retryAfter === undefined ? {} : { 'retry-after': throttle.retryAfter },
      body: armError('TooManyRequests', `The request is being throttled (${route.operation}).`),
    };
  }
  const failure = takeFailure(deps.failures, route.operation, url);
  if (failure) return { status: failure.status, body: armError(failure.code, failure.message) };
  if (params.sub !== undefined && params.sub !== deps.context.subscriptionId) {
    return { status: 404, body: armError('SubscriptionNotFound', `The subscription '${params.sub}' could not be found.`) };
  }
  let body: unknown;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    return { status: 400, body: armError('InvalidRequestContent', 'The request content was invalid JSON.') };
  }
  const operationDeps: OperationDeps = { ...deps, baseUrl: url.origin };
  return route.handle(operationDeps, params, url, { body, ifMatch: header(req, 'if-match') });
}

function countRequest(counts: ArmSimCounts, operation: ArmSimOperation, url: URL): void {
  counts[operation] += 1;
  if (operation === 'listVms') {
    counts.listVmsPages += 1;
    if (url.searchParams.has('$skiptoken')) counts.listVms -= 1;
  }
}

function takeThrottle(rules: ThrottleRule[], operation: ArmSimOperation): ThrottleRule | undefined {
  const rule = rules.find((r) => r.remaining > 0 && (!r.operations || r.operations.includes(operation)));
  if (rule) rule.remaining -= 1;
  return rule;
}

function takeFailure(rules: FailureRule[], operation: ArmSimOperation, url: URL): FailureRule | undefined {
  const laterPage = url.searchParams.has('$skiptoken');
  const rule = rules.find((r) => r.remaining > 0 && (!r.operations || r.operations.includes(operation)) && (!r.laterPagesOnly || laterPage));
  if (rule) rule.remaining -= 1;
  return rule;
}

function findRoute(method: string, segments: string[]): { route: Route; params: Record<string, string> } | undefined {
  for (const route of ROUTES) {
    if (route.method !== method.toUpperCase() || route.pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = route.pattern.every((part, i) => {
      const segment = segments[i] ?? '';
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name) params[name] = segment;
      return name !== undefined || part.toLowerCase() === segment.toLowerCase();
    });
    if (matches) return { route, params };
  }
  return undefined;
}

function split(pattern: string): string[] {
  return pattern.split('/');
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const UNKNOWN = { droverUnknownField: 'a field a newer service version might add', droverUnknownObject: { nested: [1, 2] } };

/** `reply` with fields no specification names, at the top, in `properties` and in each listed item. */
function withUnknownFields(reply: Reply): Reply {
  if (typeof reply.body !== 'object' || reply.body === null) return reply;
  const extend = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const object = value as Record<string, unknown>;
    return { ...object, ...UNKNOWN, ...('properties' in object ? { properties: extend(object.properties) } : {}), ...(Array.isArray(object.value) ? { value: object.value.map(extend) } : {}) };
  };
  return { ...reply, body: extend(reply.body), offSpec: reply.offSpec ?? 'unknown fields added (unknownFields)' };
}

function send(res: ServerResponse, reply: Reply, rateLimitHeaders: Record<string, string>): void {
  if (reply.offSpec) markFault(res, reply.offSpec);
  const text = reply.body === undefined ? '' : JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    ...rateLimitHeaders,
    'x-ms-request-id': crypto.randomUUID(),
    ...(text ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    'content-length': Buffer.byteLength(text),
    ...reply.headers,
  });
  res.end(text);
}
