/**
 * The ARM compute simulator: a real HTTPS server (certificate generated at start) speaking the
 * REST subset Drover's `@azure/arm-compute` calls use, scriptable from tests and `drover sim`.
 *
 *   const sim = await startArmSim();
 *   sim.addScaleSet({ resourceGroup: 'rg', name: 'vmss', capacity: 3 });
 *   // point the SDK at sim.url, trusting sim.caPem; any bearer token is accepted
 *   sim.counts.listVms; sim.throttleNext(2, { retryAfter: 30 }); await sim.close();
 */
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/clock.js';
import { systemClock } from '../../src/clock.js';
import { generateSimCertificate } from './certificate.js';
import type { SimScaleSetControl } from './control.js';
import { scaleSetControl } from './control.js';
import type { SimEvictionPolicy, SimOrchestrationMode, SimPriority, SimScaleSetSettings, SimVmSpec } from './model.js';
import { SimWorld } from './model.js';
import type { ResourceContext } from './representation.js';
import type { ArmSimCounts, ArmSimOperation, FailureRule, ThrottleRule } from './routes.js';
import { createArmHandler, zeroCounts } from './routes.js';
import { recorded } from '../recorder.js';
import { addAutoscaleSetting, type SimAutoscaleControl, type SimAutoscaleSettingSpec } from './autoscale.js';

export type { ArmSimCounts, ArmSimOperation } from './routes.js';
export type { SimScaleSetControl, SimVmView } from './control.js';
export type { SimEvictionPolicy, SimExtension, SimOrchestrationMode, SimPriority, SimScaleSetSettings, SimStatus, SimVmSpec } from './model.js';
export type { SimAutoscaleControl, SimAutoscaleSettingSpec } from './autoscale.js';

export interface ArmSimOptions {
  /** Drives VM lifecycles; a ManualClock makes them step only when told. Default: system clock. */
  clock?: Clock;
  subscriptionId?: string;
  location?: string;
  /** Creating → Succeeded after this long. Default 2 s. */
  provisionDelayMs?: number;
  /** Deleting → gone after this long. Default 2 s. */
  deleteDelayMs?: number;
  /** Deallocated → running after a start, this long. Default 1 s. */
  startDelayMs?: number;
  /** Running → deallocated after a deallocate, this long. Default 1 s. */
  deallocateDelayMs?: number;
  /** VMs per list page before a nextLink. Default 50. */
  pageSize?: number;
  /** Default 0: any free port, on 127.0.0.1. */
  port?: number;
  /** 202: a scale set PATCH that starts work answers 202 + Azure-AsyncOperation/Location (off the specification, as ARM has answered). Default 200. */
  scaleSetPatchStatus?: 200 | 202;
  /** Every JSON answer also carries fields no specification names, as a newer service version may send. */
  unknownFields?: boolean;
  /** Record every exchange here for the API check (sim/recorder.ts). Default: `DROVER_RECORD_DIR`. */
  recordDir?: string;
}

export interface SimScaleSetSpec {
  resourceGroup: string;
  name: string;
  /** Default Uniform; `null`: ARM reports no mode. */
  orchestrationMode?: SimOrchestrationMode | null;
  /** The VMs it starts with, in order (each Succeeded and running unless it says otherwise). */
  vms?: SimVmSpec[];
  /** Without `vms`: start with this many Succeeded, running VMs. */
  capacity?: number;
  /** Model settings status shows: `overprovision`, `terminateNotification`. */
  settings?: SimScaleSetSettings;
  /** The model's VM priority; `Spot` VMs can be evicted (`control.evict`). Default Regular. */
  priority?: SimPriority;
  /** Spot only: what an eviction does. Default Deallocate. */
  evictionPolicy?: SimEvictionPolicy;
}

export interface ArmSim {
  /** `https://127.0.0.1:<port>`: the `resourceManagerEndpoint`. */
  readonly url: string;
  /** The server certificate (self-signed), to trust as `azure.caFile`. */
  readonly caPem: string;
  readonly subscriptionId: string;
  /** Live request counters; `resetCounts` zeroes them in place. */
  readonly counts: ArmSimCounts;
  resetCounts(): void;
  writeCaFile(path: string): Promise<void>;
  addScaleSet(spec: SimScaleSetSpec): SimScaleSetControl;
  /** @throws when there is no such scale set. */
  scaleSet(resourceGroup: string, name: string): SimScaleSetControl;
  /** An Azure Monitor autoscale setting in the resource group (enabled unless it says otherwise), listed, never acted on. */
  addAutoscaleSetting(spec: SimAutoscaleSettingSpec): SimAutoscaleControl;
  /** The next `count` matching requests answer 429, with `Retry-After: retryAfter` when given. */
  throttleNext(count: number, options?: { retryAfter?: number | string; operations?: ArmSimOperation[] }): void;
  /**
   * The next `count` matching requests answer `status` with ARM's error body (`code`, `message`):
   * a 409 on a delete, a 404 on a later page of a listing (`laterPagesOnly`).
   */
  failNext(count: number, failure: { status: number; code: string; message?: string; operations?: ArmSimOperation[]; laterPagesOnly?: boolean }): void;
  /** Headers sent on every response, replacing the default `x-ms-ratelimit-remaining-*` set. */
  setRateLimitHeaders(headers: Record<string, string>): void;
  close(): Promise<void>;
}

export const DEFAULT_RATE_LIMIT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-ms-ratelimit-remaining-subscription-reads': '11999',
  'x-ms-ratelimit-remaining-resource':
    'Microsoft.Compute/GetVMScaleSet3Min;197,Microsoft.Compute/GetVMScaleSet30Min;1297',
});

export async function startArmSim(options: ArmSimOptions = {}): Promise<ArmSim> {
  const context: ResourceContext = {
    subscriptionId: options.subscriptionId ?? '00000000-0000-0000-0000-000000000000',
    location: options.location ?? 'westeurope',
  };
  const world = new SimWorld(options.clock ?? systemClock, {
    provisionDelayMs: options.provisionDelayMs ?? 2_000,
    deleteDelayMs: options.deleteDelayMs ?? 2_000,
    startDelayMs: options.startDelayMs ?? 1_000,
    deallocateDelayMs: options.deallocateDelayMs ?? 1_000,
  });
  const counts = zeroCounts();
  const throttles: ThrottleRule[] = [];
  const failures: FailureRule[] = [];
  let rateLimitHeaders: Record<string, string> = { ...DEFAULT_RATE_LIMIT_HEADERS };
  const certificate = await generateSimCertificate();
  const handler = createArmHandler({
    world,
    context,
    counts,
    throttles,
    failures,
    pageSize: options.pageSize ?? 50,
    ...(options.scaleSetPatchStatus ? { scaleSetPatchStatus: options.scaleSetPatchStatus } : {}),
    ...(options.unknownFields ? { unknownFields: true } : {}),
    rateLimitHeaders: () => rateLimitHeaders,
  });
  const server = createServer({ key: certificate.key, cert: certificate.cert }, recorded('arm', handler, options.recordDir));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const control = (resourceGroup: string, name: string): SimScaleSetControl => {
    const scaleSet = world.findScaleSet(resourceGroup, name);
    if (!scaleSet) throw new Error(`sim: no scale set ${resourceGroup}/${name}`);
    return scaleSetControl(world, context, scaleSet);
  };

  return {
    url: `https://127.0.0.1:${port}`,
    caPem: certificate.cert,
    subscriptionId: context.subscriptionId,
    counts,
    resetCounts: () => Object.assign(counts, zeroCounts()),
    writeCaFile: (path) => writeFile(path, certificate.cert, 'utf8'),
    addScaleSet: (spec) => {
      const mode = spec.orchestrationMode === undefined ? 'Uniform' : spec.orchestrationMode;
      const scaleSet = world.addScaleSet(spec.resourceGroup, spec.name, mode);
      scaleSet.priority = spec.priority ?? 'Regular';
      scaleSet.evictionPolicy = spec.evictionPolicy ?? 'Deallocate';
      const vms = spec.vms ?? Array.from({ length: spec.capacity ?? 0 }, () => ({}));
      for (const vm of vms) world.addVm(scaleSet, vm);
      if (spec.settings) scaleSet.settings = { ...spec.settings };
      return scaleSetControl(world, context, scaleSet);
    },
    addAutoscaleSetting: (spec) => addAutoscaleSetting(world.autoscaleSettings, context.subscriptionId, spec),
    scaleSet: control,
    throttleNext: (count, { retryAfter, operations } = {}) => {
      throttles.push({
        remaining: count,
        retryAfter: retryAfter === undefined ? undefined : String(retryAfter),
        operations,
      });
    },
    failNext: (count, failure) => {
      failures.push({
        remaining: count,
        status: failure.status,
        code: failure.code,
        message: failure.message ?? `scripted ${failure.status} (${failure.code})`,
        operations: failure.operations,
        laterPagesOnly: failure.laterPagesOnly ?? false,
      });
    },
    setRateLimitHeaders: (headers) => {
      rateLimitHeaders = { ...headers };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
