/**
 * Azure Monitor autoscale settings in the ARM simulator: the resource group list Drover reads
 * (`GET …/resourceGroups/{rg}/providers/Microsoft.Insights/autoscalesettings`, paged like the VM
 * lists), and a handle for tests and the demo to add, enable, disable, retarget or remove one.
 * The settings only exist to be listed: the simulator never scales by them.
 */
import type { OperationDeps, Reply } from './operations.js';
import { armError } from './representation.js';
import type { SimAutoscaleSetting } from './model.js';

export type { SimAutoscaleSetting } from './model.js';

export const AUTOSCALE_API_VERSION = '2022-10-01';

export interface SimAutoscaleSettingSpec {
  resourceGroup: string;
  name: string;
  /** The resource id it scales (a scale set's `id`, in any case). */
  targetResourceUri: string;
  /** Default true. */
  enabled?: boolean;
}

export interface SimAutoscaleControl {
  readonly id: string;
  readonly enabled: boolean;
  enable(): void;
  disable(): void;
  retarget(targetResourceUri: string): void;
  remove(): void;
}

export function settingId(subscriptionId: string, setting: SimAutoscaleSetting): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${setting.resourceGroup}/providers/microsoft.insights/autoscalesettings/${setting.name}`;
}

export function addAutoscaleSetting(settings: SimAutoscaleSetting[], subscriptionId: string, spec: SimAutoscaleSettingSpec): SimAutoscaleControl {
  const live = settings.find((s) => !s.removed && same(s.resourceGroup, spec.resourceGroup) && same(s.name, spec.name));
  if (live) throw new Error(`sim: autoscale setting ${spec.resourceGroup}/${spec.name} already exists`);
  const setting: SimAutoscaleSetting = { resourceGroup: spec.resourceGroup, name: spec.name, targetResourceUri: spec.targetResourceUri, enabled: spec.enabled ?? true, removed: false };
  settings.push(setting);
  return {
    id: settingId(subscriptionId, setting),
    get enabled() {
      return setting.enabled;
    },
    enable: () => void (setting.enabled = true),
    disable: () => void (setting.enabled = false),
    retarget: (uri) => void (setting.targetResourceUri = uri),
    remove: () => void (setting.removed = true),
  };
}

/** The list of one resource group, `pageSize` settings a page, `$skiptoken` the offset. */
export function listAutoscaleSettings(deps: OperationDeps, params: Record<string, string>, url: URL): Reply {
  const group = params.rg ?? '';
  const all = deps.world.autoscaleSettings.filter((s) => !s.removed && same(s.resourceGroup, group));
  const offset = Number(url.searchParams.get('$skiptoken') ?? '0');
  if (!Number.isInteger(offset) || offset < 0) return { status: 400, body: armError('InvalidSkipToken', `bad $skiptoken ${url.searchParams.get('$skiptoken')}`) };
  const page = all.slice(offset, offset + deps.pageSize);
  const next = offset + deps.pageSize < all.length ? `${deps.baseUrl}${url.pathname}?api-version=${AUTOSCALE_API_VERSION}&$skiptoken=${offset + deps.pageSize}` : undefined;
  return {
    status: 200,
    body: {
      value: page.map((s) => ({
        id: settingId(deps.context.subscriptionId, s),
        name: s.name,
        type: 'Microsoft.Insights/autoscaleSettings',
        location: deps.context.location,
        tags: {},
        properties: {
          name: s.name,
          enabled: s.enabled,
          targetResourceUri: s.targetResourceUri,
          targetResourceLocation: deps.context.location,
          profiles: [{ name: 'default', capacity: { minimum: '1', maximum: '10', default: '1' }, rules: [] }],
          notifications: [],
        },
      })),
      ...(next ? { nextLink: next } : {}),
    },
  };
}

function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
