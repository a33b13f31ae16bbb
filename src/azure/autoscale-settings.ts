/**
 * The Azure Monitor autoscale settings of a resource group, as the autoscale hold
 * (src/pool/autoscale-hold.ts) needs them: a paged GET of
 * `…/resourceGroups/{group}/providers/Microsoft.Insights/autoscalesettings`, sent through the
 * compute adapter's own ARM pipeline (its credential, CA trust, per-request timeout, no SDK
 * retries). `@azure/arm-monitor` would be a dependency for one GET, and its current major needs
 * Node 22.
 *
 * Bounded: the whole read within `timeoutMs` (on top of the pipeline's per-request timeout), at
 * most MAX_PAGES pages of MAX_PAGE_CHARS each and MAX_SETTINGS settings, and a nextLink only to
 * the endpoint's own origin (the bearer token goes nowhere else). Errors are the compute
 * adapter's closed set (errors.ts), plus TimeoutError when the read as a whole ran out.
 */
import { RestError, createPipelineRequest, type PipelineRequest, type PipelineResponse } from '@azure/core-rest-pipeline';
import { TimeoutError, callDeadline } from '../deadline.js';
import { armErrorCodeOf, translateArmError } from './error-translation.js';
import { ArmRequestError } from './errors.js';

export const AUTOSCALE_API_VERSION = '2022-10-01';
/** Pages one read follows before it gives up. */
export const MAX_AUTOSCALE_PAGES = 20;
/** Settings one read accepts: far more than a resource group holds in practice. */
export const MAX_AUTOSCALE_SETTINGS = 2_000;
/** Characters of one page (a setting with 20 profiles of rules is a few tens of KiB). */
export const MAX_AUTOSCALE_PAGE_CHARS = 8 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 20_000;

export interface AutoscaleSettingRecord {
  id: string;
  name: string;
  /** `properties.enabled === true` (ARM documents the default as false). */
  enabled: boolean;
  targetResourceUri: string | undefined;
}

export interface AutoscaleSettingsApi {
  /** Every autoscale setting of the resource group, all pages read. */
  listAutoscaleSettings(resourceGroup: string, options?: { abortSignal?: AbortSignal }): Promise<AutoscaleSettingRecord[]>;
}

export type SendRequest = (request: PipelineRequest) => Promise<PipelineResponse>;

export interface AutoscaleListOptions {
  endpoint: string;
  subscriptionId: string;
  abortSignal?: AbortSignal;
  timeoutMs?: number;
  now: () => number;
}

export async function listAutoscaleSettingsVia(send: SendRequest, resourceGroup: string, options: AutoscaleListOptions): Promise<AutoscaleSettingRecord[]> {
  const operation = 'list autoscale settings';
  const deadline = callDeadline(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.abortSignal);
  const origin = new URL(options.endpoint).origin;
  let url: string | undefined = `${origin}/subscriptions/${encodeURIComponent(options.subscriptionId)}/resourceGroups/${encodeURIComponent(resourceGroup)}/providers/Microsoft.Insights/autoscalesettings?api-version=${AUTOSCALE_API_VERSION}`;
  const settings: AutoscaleSettingRecord[] = [];
  let pages = 0;
  let errorBody: string | undefined;
  try {
    while (url) {
      if (++pages > MAX_AUTOSCALE_PAGES) throw new ArmRequestError(operation, undefined, undefined, `more than ${MAX_AUTOSCALE_PAGES} pages, stopped`);
      const response = await send(createPipelineRequest({ url, method: 'GET', abortSignal: deadline.signal }));
      const text = response.bodyAsText ?? '';
      if (text.length > MAX_AUTOSCALE_PAGE_CHARS) throw new ArmRequestError(operation, response.status, undefined, `a page of more than ${MAX_AUTOSCALE_PAGE_CHARS} characters, stopped`);
      if (response.status !== 200) {
        errorBody = text;
        throw new RestError(`ARM answered ${response.status}`, { statusCode: response.status, response, code: armErrorCodeOf(text) });
      }
      const page = parsePage(text, operation);
      settings.push(...page.settings);
      if (settings.length > MAX_AUTOSCALE_SETTINGS) throw new ArmRequestError(operation, 200, undefined, `more than ${MAX_AUTOSCALE_SETTINGS} autoscale settings, stopped`);
      url = page.nextLink;
      if (url !== undefined && new URL(url).origin !== origin) throw new ArmRequestError(operation, 200, undefined, `nextLink to another origin (${new URL(url).origin}), not followed`);
    }
  } catch (error) {
    if (deadline.timedOut()) throw new TimeoutError(`${operation} of resource group ${resourceGroup}`, deadline.timeoutMs);
    throw translateArmError(error, { operation, resource: `resource group ${resourceGroup}`, afterFirstPage: pages > 1, errorBody }, options.now());
  }
  return settings;
}

interface RawSetting {
  id?: unknown;
  name?: unknown;
  properties?: { enabled?: unknown; targetResourceUri?: unknown };
}

function parsePage(text: string, operation: string): { settings: AutoscaleSettingRecord[]; nextLink: string | undefined } {
  let body: { value?: unknown; nextLink?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new ArmRequestError(operation, 200, undefined, 'the answer is not JSON');
  }
  if (!Array.isArray(body?.value)) throw new ArmRequestError(operation, 200, undefined, 'the answer has no "value" list');
  const settings = (body.value as RawSetting[]).map((raw) => ({
    id: typeof raw?.id === 'string' ? raw.id : '',
    name: typeof raw?.name === 'string' ? raw.name : '',
    enabled: raw?.properties?.enabled === true,
    targetResourceUri: typeof raw?.properties?.targetResourceUri === 'string' ? raw.properties.targetResourceUri : undefined,
  }));
  return { settings, nextLink: typeof body.nextLink === 'string' && body.nextLink !== '' ? body.nextLink : undefined };
}
