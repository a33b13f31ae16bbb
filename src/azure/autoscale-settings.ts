/**
 * The Azure Monitor autoscale settings of a resource group, as the autoscale hold
 * (src/pool/autoscale-hold.ts) needs them: a paged GET of
 * `…/resourcegroups/{group}/providers/Microsoft.Insights/autoscalesettings` (lower case, as its
 * specification writes it: ARM matches either way, a strict proxy may not), sent through the
 * compute adapter's own ARM pipeline (its credential, CA trust, per-request timeout, no SDK
 * retries). `@azure/arm-monitor` would be a dependency for one GET, and its current major needs
 * Node 22.
 *
 * Bounded: the whole read within `timeoutMs` (on top of the pipeline's per-request timeout), at
 * most MAX_PAGES pages of MAX_PAGE_CHARS each and MAX_SETTINGS settings, and a nextLink only to
 * the endpoint's own origin (the bearer token goes nowhere else). Errors are the compute
 * adapter's closed set (errors.ts), plus TimeoutError when the read as a whole ran out.
 */
import { readArmPages, type SendRequest } from './arm-pages.js';
import { TimeoutError, callDeadline } from '../deadline.js';
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
  const url = `${origin}/subscriptions/${encodeURIComponent(options.subscriptionId)}/resourcegroups/${encodeURIComponent(resourceGroup)}/providers/Microsoft.Insights/autoscalesettings?api-version=${AUTOSCALE_API_VERSION}`;
  const settings: AutoscaleSettingRecord[] = [];
  const pages = { operation, endpoint: options.endpoint, resource: `resource group ${resourceGroup}`, maxPages: MAX_AUTOSCALE_PAGES, maxPageChars: MAX_AUTOSCALE_PAGE_CHARS, abortSignal: deadline.signal, now: options.now };
  try {
    await readArmPages(send, url, pages, (items) => {
      settings.push(...items.map((raw) => settingOf(raw as RawSetting)));
      if (settings.length > MAX_AUTOSCALE_SETTINGS) throw new ArmRequestError(operation, 200, undefined, `more than ${MAX_AUTOSCALE_SETTINGS} autoscale settings, stopped`);
    });
  } catch (error) {
    if (deadline.timedOut()) throw new TimeoutError(`${operation} of resource group ${resourceGroup}`, deadline.timeoutMs);
    throw error;
  }
  return settings;
}

interface RawSetting {
  id?: unknown;
  name?: unknown;
  properties?: { enabled?: unknown; targetResourceUri?: unknown };
}

function settingOf(raw: RawSetting): AutoscaleSettingRecord {
  return {
    id: typeof raw?.id === 'string' ? raw.id : '',
    name: typeof raw?.name === 'string' ? raw.name : '',
    enabled: raw?.properties?.enabled === true,
    targetResourceUri: typeof raw?.properties?.targetResourceUri === 'string' ? raw.properties.targetResourceUri : undefined,
  };
}
