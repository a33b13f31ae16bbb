/** The compute operations the simulator serves, each a function of the world and one request. */
import type { SimOperation, SimVm, SimWorld } from './model.js';
import type { ResourceContext } from './representation.js';
import { armError, etagOf, scaleSetId, scaleSetJson, vmJson } from './representation.js';

export const API_VERSION = '2026-03-01';

export interface OperationDeps {
  world: SimWorld;
  context: ResourceContext;
  pageSize: number;
  /** Origin the client used, for absolute nextLink and operation URLs. */
  baseUrl: string;
  /**
   * How a scale set PATCH that starts work is answered: 200 with the operation's headers, as the
   * specification declares (the default), or 202 with Azure-AsyncOperation and Location, as ARM
   * has been seen to answer, to show Drover tolerates it.
   */
  scaleSetPatchStatus?: 200 | 202;
}

/** What a handler reads of the request besides its URL. */
export interface RequestInfo {
  /** Parsed JSON body, if any. */
  body: unknown;
  ifMatch: string | undefined;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Why this answer is outside the specification on purpose (recorded as a fault, sim/recorder.ts). */
  offSpec?: string;
}

type Params = Record<string, string>;

export function getScaleSet(deps: OperationDeps, params: Params): Reply {
  const scaleSet = deps.world.findScaleSet(params.rg ?? '', params.name ?? '');
  if (!scaleSet) return scaleSetNotFound(params);
  return { status: 200, headers: { etag: etagOf(scaleSet) }, body: scaleSetJson(deps.context, scaleSet) };
}

/** PATCH or PUT: only `sku.capacity` is honoured; If-Match guards the write. */
export function writeScaleSet(deps: OperationDeps, params: Params, url: URL, req: RequestInfo): Reply {
  const scaleSet = deps.world.findScaleSet(params.rg ?? '', params.name ?? '');
  if (!scaleSet) return scaleSetNotFound(params);
  if (req.ifMatch !== undefined && req.ifMatch !== '*' && req.ifMatch !== etagOf(scaleSet)) {
    return {
      status: 412,
      body: armError('PreconditionFailed', `If-Match ${req.ifMatch} does not match the current ETag ${etagOf(scaleSet)}.`),
    };
  }
  const capacity = (req.body as { sku?: { capacity?: unknown } } | undefined)?.sku?.capacity;
  if (capacity !== undefined && !(Number.isInteger(capacity) && (capacity as number) >= 0)) {
    return { status: 400, body: armError('InvalidParameter', `sku.capacity must be a whole number ≥ 0, got ${String(capacity)}.`) };
  }
  const operation =
    capacity === undefined ? deps.world.touch(scaleSet) : deps.world.setCapacity(scaleSet, capacity as number);
  const headers: Record<string, string> = { etag: etagOf(scaleSet) };
  if (!operation) return { status: 200, headers, body: scaleSetJson(deps.context, scaleSet) };
  if (deps.scaleSetPatchStatus === 202) {
    // Location names the scale set itself: the client's final GET of a PATCH reads the resource there.
    const location = new URL(url.pathname + url.search, deps.baseUrl).toString();
    return {
      status: 202,
      headers: { ...headers, 'azure-asyncoperation': operationUrl(deps, operation), location },
      offSpec: 'scale set PATCH answered 202 (scaleSetPatchStatus)',
    };
  }
  return {
    status: 200,
    headers: { ...headers, 'azure-asyncoperation': operationUrl(deps, operation) },
    body: scaleSetJson(deps.context, scaleSet, 'Updating'),
  };
}

export function listUniformVms(deps: OperationDeps, params: Params, url: URL): Reply {
  const scaleSet = deps.world.findScaleSet(params.rg ?? '', params.name ?? '');
  if (!scaleSet) return scaleSetNotFound(params);
  if (scaleSet.orchestrationMode === 'Flexible') {
    return { status: 400, body: armError('OperationNotAllowed', 'Virtual machine scale set VM APIs are not supported for Flexible orchestration mode.') };
  }
  const withView = url.searchParams.get('$expand') === 'instanceView';
  const items = deps.world.liveVms(scaleSet).map((vm) => vmJson(deps.context, scaleSet, vm, withView));
  return page(deps, url, items);
}

/** The resource group's VMs, filtered by scale set the way Flexible listings are asked for. */
export function listFlexibleVms(deps: OperationDeps, params: Params, url: URL): Reply {
  const resourceGroup = params.rg ?? '';
  const inGroup = deps.world.scaleSets.filter((s) => s.resourceGroup.toLowerCase() === resourceGroup.toLowerCase());
  if (inGroup.length === 0) {
    return { status: 404, body: armError('ResourceGroupNotFound', `Resource group '${resourceGroup}' could not be found.`) };
  }
  const filter = url.searchParams.get('$filter');
  const withView = url.searchParams.get('$expand') === 'instanceView';
  if (withView && !filter) {
    return { status: 400, body: armError('InvalidParameter', "$expand=instanceView requires a valid $filter on 'virtualMachineScaleSet/id'.") };
  }
  let wantedId: string | undefined;
  if (filter) {
    const quoted = /^'virtualMachineScaleSet\/id'\s+eq\s+'(.*)'$/i.exec(filter.trim())?.[1];
    if (quoted === undefined) return { status: 400, body: armError('InvalidParameter', `Unsupported $filter: ${filter}`) };
    wantedId = quoted.replace(/''/g, "'").toLowerCase();
  }
  const listed = inGroup.filter(
    (s) => s.orchestrationMode === 'Flexible' && (wantedId === undefined || scaleSetId(deps.context, s).toLowerCase() === wantedId),
  );
  const items = listed.flatMap((scaleSet) =>
    deps.world.liveVms(scaleSet).map((vm) => vmJson(deps.context, scaleSet, vm, withView)),
  );
  return page(deps, url, items);
}

export function deleteInstances(deps: OperationDeps, params: Params, _url: URL, req: RequestInfo): Reply {
  const scaleSet = deps.world.findScaleSet(params.rg ?? '', params.name ?? '');
  if (!scaleSet) return scaleSetNotFound(params);
  const ids = (req.body as { instanceIds?: unknown } | undefined)?.instanceIds;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string')) {
    return { status: 400, body: armError('InvalidParameter', 'instanceIds must be a non-empty list of strings.') };
  }
  const vms: SimVm[] = [];
  for (const id of ids as string[]) {
    const vm = deps.world.findVm(scaleSet, id);
    if (!vm) {
      return { status: 400, body: armError('InvalidParameter', `The provided instanceId ${id} is not an active Virtual Machine Scale Set VM instanceId.`) };
    }
    vms.push(vm);
  }
  return operationAccepted(deps, deps.world.deleteInstances(scaleSet, vms));
}

/** 202 with the operation's Azure-AsyncOperation and Location URLs, as ARM answers a POST it runs. */
export function operationAccepted(deps: OperationDeps, operation: SimOperation): Reply {
  const location = operationUrl(deps, operation);
  return {
    status: 202,
    headers: { 'azure-asyncoperation': location, location: location.replace('?', '?monitor=true&') },
  };
}

export function pollOperation(deps: OperationDeps, params: Params, url: URL): Reply {
  const operation = deps.world.operation(params.id ?? '');
  if (!operation) return { status: 404, body: armError('NotFound', `Operation ${params.id} not found.`) };
  const done = deps.world.isDone(operation);
  if (url.searchParams.get('monitor') === 'true') return { status: done ? 200 : 202 };
  return {
    status: 200,
    body: {
      name: operation.id,
      status: done ? 'Succeeded' : 'InProgress',
      startTime: new Date(operation.startedAt).toISOString(),
      ...(done ? { endTime: new Date(deps.world.clock.now()).toISOString() } : {}),
    },
  };
}

function page(deps: OperationDeps, url: URL, items: readonly object[]): Reply {
  const offset = Math.max(0, Number(url.searchParams.get('$skiptoken') ?? '0') || 0);
  const end = offset + deps.pageSize;
  const body: { value: object[]; nextLink?: string } = { value: items.slice(offset, end) };
  if (end < items.length) {
    const next = new URL(url.pathname + url.search, deps.baseUrl);
    next.searchParams.set('$skiptoken', String(end));
    body.nextLink = next.toString();
  }
  return { status: 200, body };
}

function operationUrl(deps: OperationDeps, operation: SimOperation): string {
  return `${deps.baseUrl}/subscriptions/${deps.context.subscriptionId}/providers/Microsoft.Compute/locations/${deps.context.location}/operations/${operation.id}?api-version=${API_VERSION}`;
}

export function scaleSetNotFound(params: Params): Reply {
  return {
    status: 404,
    body: armError(
      'ResourceNotFound',
      `The Resource 'Microsoft.Compute/virtualMachineScaleSets/${params.name}' under resource group '${params.rg}' was not found.`,
    ),
  };
}
