/**
 * A scale set's VMs with their instance views, read through the compute client's own pipeline
 * (its credential, CA trust, per-request timeout, no retries) and parsed with `JSON.parse` into
 * the port's records. The SDK's models would build every field of every VM with its
 * deserialisers, several times the parse for a thousand VMs, where Drover reads a dozen fields.
 *
 *   Uniform    GET …/virtualMachineScaleSets/{name}/virtualMachines?$expand=instanceView
 *   Flexible   GET …/resourceGroups/{group}/providers/Microsoft.Compute/virtualMachines
 *                  ?$filter='virtualMachineScaleSet/id' eq '{id}'&$expand=instanceView
 *
 * Bounded: at most `maxVms` VMs and `maxVms + 1` pages, MAX_VM_PAGE_CHARS a page, and the rest
 * of a paged ARM read's bounds (arm-pages.ts). Errors are the compute adapter's closed set.
 */
import { readArmPages, type SendRequest } from './arm-pages.js';
import { ArmRequestError } from './errors.js';
import { rateLimitFromHeaders } from './rate-limit-headers.js';
import type { OrchestrationMode, VmExtensionRecord, VmListing, VmRecord, VmStatusRecord } from './scale-set-api.js';

/** The Compute API version the SDK in use speaks (`@azure/arm-compute` 24.1). */
export const COMPUTE_API_VERSION = '2026-03-01';
/** Characters of one page: a thousand VMs with their instance views are a few MiB. */
export const MAX_VM_PAGE_CHARS = 64 * 1024 * 1024;

export interface VmListOptions {
  endpoint: string;
  subscriptionId: string;
  maxVms: number;
  abortSignal?: AbortSignal;
  now: () => number;
}

export async function listVmsVia(send: SendRequest, resourceGroup: string, name: string, mode: OrchestrationMode, options: VmListOptions): Promise<VmListing> {
  const operation = `list ${mode} VMs`;
  const vms: VmRecord[] = [];
  let rateLimit: VmListing['rateLimit'] = null;
  const pages = {
    operation,
    endpoint: options.endpoint,
    resource: `scale set ${resourceGroup}/${name}`,
    // An endpoint could answer empty pages with a nextLink for ever: no more pages than VMs allowed.
    maxPages: options.maxVms + 1,
    maxPageChars: MAX_VM_PAGE_CHARS,
    pagesNote: `at most ${options.maxVms} VMs are listed`,
    now: options.now,
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  };
  await readArmPages(send, firstPageUrl(new URL(options.endpoint).origin, options.subscriptionId, resourceGroup, name, mode), pages, (items, response) => {
    rateLimit = rateLimitFromHeaders(response.headers, options.now()) ?? rateLimit;
    for (const raw of items) vms.push(vmRecordOf(raw as RawVm, mode));
    if (vms.length > options.maxVms) throw new ArmRequestError(operation, 200, undefined, `more than ${options.maxVms} VMs, stopped (raise instanceLimit if the scale set is meant to be this large)`);
  });
  return { vms, rateLimit };
}

function firstPageUrl(origin: string, subscriptionId: string, resourceGroup: string, name: string, mode: OrchestrationMode): string {
  const group = `${origin}/subscriptions/${encodeURIComponent(subscriptionId)}/resourceGroups/${encodeURIComponent(resourceGroup)}/providers/Microsoft.Compute`;
  const query = `$expand=instanceView&api-version=${COMPUTE_API_VERSION}`;
  if (mode === 'Uniform') return `${group}/virtualMachineScaleSets/${encodeURIComponent(name)}/virtualMachines?${query}`;
  const scaleSetId = `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`;
  return `${group}/virtualMachines?$filter=${encodeURIComponent(`'virtualMachineScaleSet/id' eq '${scaleSetId.replace(/'/g, "''")}'`)}&${query}`;
}

/** A VM as ARM's JSON has it, before anything is trusted. */
interface RawVm {
  id?: unknown;
  name?: unknown;
  instanceId?: unknown;
  zones?: unknown;
  properties?: {
    provisioningState?: unknown;
    timeCreated?: unknown;
    protectionPolicy?: { protectFromScaleIn?: unknown; protectFromScaleSetActions?: unknown };
    instanceView?: { statuses?: unknown; extensions?: unknown };
  };
}

/** The port's record of one VM: what is absent, `null` or of the wrong type is undefined. */
export function vmRecordOf(raw: RawVm, mode: OrchestrationMode): VmRecord {
  const props = isObject(raw?.properties) ? raw.properties : {};
  const name = str(raw?.name) ?? '';
  const protection = mode === 'Uniform' && isObject(props.protectionPolicy) ? props.protectionPolicy : undefined;
  const created = typeof props.timeCreated === 'string' ? Date.parse(props.timeCreated) : NaN;
  const zone = Array.isArray(raw?.zones) ? str(raw.zones[0]) : undefined;
  const view = isObject(props.instanceView) ? props.instanceView : undefined;
  const record: VmRecord = {
    id: str(raw?.id) ?? '',
    name,
    // A Flexible scale set names its instances by VM name in deleteInstances.
    instanceId: mode === 'Uniform' ? str(raw?.instanceId) : name || undefined,
    provisioningState: str(props.provisioningState),
    protectFromScaleIn: protection?.protectFromScaleIn === true,
    protectFromScaleSetActions: protection?.protectFromScaleSetActions === true,
    instanceView: view && { statuses: listOf(view.statuses, statusRecordOf), extensions: listOf(view.extensions, extensionRecordOf) },
  };
  if (zone !== undefined) record.zone = zone;
  if (Number.isFinite(created)) record.timeCreated = created;
  return record;
}

function statusRecordOf(raw: unknown): VmStatusRecord {
  const s = isObject(raw) ? raw : {};
  return { code: str(s.code), level: str(s.level), message: str(s.message) };
}

function extensionRecordOf(raw: unknown): VmExtensionRecord {
  const e = isObject(raw) ? raw : {};
  return { name: str(e.name), statuses: listOf(e.statuses, statusRecordOf) };
}

function listOf<T>(raw: unknown, each: (item: unknown) => T): T[] | undefined {
  return Array.isArray(raw) ? raw.map(each) : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
