/**
 * ScaleSetApi over `@azure/arm-compute`. Built once per process by the composition root;
 * it keeps no per-call state: a listing's rate-limit budget is returned with the listing. The
 * VM listings and the autoscale settings are requests it builds and parses itself, sent through
 * the client's pipeline (vm-listing.ts, autoscale-settings.ts); the rest are the SDK's calls.
 *
 * The SDK's own retries are off: a 429 must reach the cache (which keeps serving cached
 * instances and moves its next refresh past Retry-After) instead of being slept on inside an
 * invocation, and any other failure is retried by the next pass.
 */
import { readFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { ComputeManagementClientOptionalParams } from '@azure/arm-compute';
import { ComputeManagementClient } from '@azure/arm-compute';
import type { TokenCredential } from '@azure/identity';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import type { CredentialMode } from './credential.js';
import { createArmCredential } from './credential.js';
import { translateArmError } from './error-translation.js';
import { TimeoutError, callDeadline } from '../deadline.js';
import { waitBounded } from './lro.js';
import { scaleSetInfoOf } from './records.js';
import { listVmsVia } from './vm-listing.js';
import { listAutoscaleSettingsVia, type AutoscaleSettingRecord, type AutoscaleSettingsApi } from './autoscale-settings.js';
import type { SendRequest } from './arm-pages.js';
import { createDefaultHttpClient, type HttpClient } from '@azure/core-rest-pipeline';
import type {
  CallOptions,
  LroResult,
  OrchestrationMode,
  PowerChange,
  ScaleSetApi,
  ScaleSetInfo,
  VmListing,
} from './scale-set-api.js';

export const DEFAULT_RESOURCE_MANAGER_ENDPOINT = 'https://management.azure.com';

/** The `azure` section of the configuration, as this adapter needs it. */
export interface ArmConnection {
  subscriptionId: string;
  credential: CredentialMode;
  resourceManagerEndpoint?: string;
  /** PEM file of an extra CA to trust for the ARM endpoint (simulator, TLS-inspecting proxy). */
  caFile?: string;
  managedIdentityClientId?: string;
  devToken?: string;
}

export interface ComputeAdapterOptions {
  /** How long a long-running operation is waited on before `{ done: false }`. Default 5 s. */
  lroWaitMs?: number;
  /** Pause between polls of a long-running operation. Default 1 s. */
  lroPollIntervalMs?: number;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** Replaces the credential built from `connection.credential`. */
  credential?: TokenCredential;
  /** Per ARM request (each page of a listing, each poll of an operation). Default 30 s. */
  requestTimeoutMs?: number;
}

const DEFAULT_ARM_REQUEST_TIMEOUT_MS = 30_000;
/** A listing's VM cap when the caller gives none. */
const DEFAULT_MAX_VMS = 1_000;

type PipelinePolicy = NonNullable<
  ComputeManagementClientOptionalParams['additionalPolicies']
>[number]['policy'];

export async function createComputeScaleSetApi(
  connection: ArmConnection,
  options: ComputeAdapterOptions = {},
): Promise<ScaleSetApi & AutoscaleSettingsApi> {
  const endpoint = (connection.resourceManagerEndpoint ?? DEFAULT_RESOURCE_MANAGER_ENDPOINT).replace(/\/+$/, '');
  const credential =
    options.credential ??
    createArmCredential({ ...connection, resourceManagerEndpoint: endpoint }, options.env);
  const extraCa = connection.caFile ? await readCaFile(connection.caFile) : undefined;
  return new ComputeScaleSetApi(connection.subscriptionId, endpoint, credential, extraCa, options);
}

async function readCaFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`azure.caFile: cannot read "${path}": ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The HTTPS agent for an ARM endpoint signed by `extraCa`, one per CA per process. Given only
 * `ca`, Node builds a secure context from every root certificate for each new TLS socket
 * (tens of milliseconds of CPU each); this agent's sockets share one context, and its
 * keep-alive pool is shared by every client in the process.
 */
const agentsByCa = new Map<string, Agent>();
function agentTrusting(extraCa: string): Agent {
  let agent = agentsByCa.get(extraCa);
  if (!agent) {
    // `ca` replaces Node's trust store: keep the public roots next to the extra CA.
    agent = new Agent({ keepAlive: true, secureContext: createSecureContext({ ca: [...rootCertificates, extraCa] }) });
    agentsByCa.set(extraCa, agent);
  }
  return agent;
}

class ComputeScaleSetApi implements ScaleSetApi, AutoscaleSettingsApi {
  private readonly client: ComputeManagementClient;
  private readonly clock: Clock;
  private readonly lroWaitMs: number;
  private readonly lroPollIntervalMs: number;
  private readonly requestTimeoutMs: number;
  /** For the requests this adapter sends through the client's pipeline itself (the VM listings, the autoscale settings). */
  private httpClient: HttpClient | undefined;
  private readonly agent: Agent | undefined;

  constructor(
    private readonly subscriptionId: string,
    private readonly endpoint: string,
    credential: TokenCredential,
    extraCa: string | undefined,
    options: ComputeAdapterOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.lroWaitMs = options.lroWaitMs ?? 5_000;
    this.lroPollIntervalMs = options.lroPollIntervalMs ?? 1_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_ARM_REQUEST_TIMEOUT_MS;
    this.agent = extraCa ? agentTrusting(extraCa) : undefined;
    this.client = new ComputeManagementClient(credential, subscriptionId, {
      endpoint,
      credentials: { scopes: [`${new URL(endpoint).origin}/.default`] },
      ...(this.agent ? { agent: this.agent } : {}),
      retryOptions: { maxRetries: 0 },
      userAgentOptions: { userAgentPrefix: 'drover' },
      additionalPolicies: [
        { policy: this.requestTimeout(), position: 'perRetry' },
      ],
    });
  }

  async getScaleSet(resourceGroup: string, name: string, options: CallOptions = {}): Promise<ScaleSetInfo> {
    const op = 'get scale set';
    try {
      const vmss = await this.client.virtualMachineScaleSets.get(resourceGroup, name, {
        abortSignal: options.abortSignal,
      });
      return scaleSetInfoOf(vmss);
    } catch (error) {
      throw translateArmError(error, { operation: op, resource: this.describe(resourceGroup, name) }, this.clock.now());
    }
  }

  async listVms(
    resourceGroup: string,
    name: string,
    mode: OrchestrationMode,
    options: CallOptions = {},
  ): Promise<VmListing> {
    const listing = { endpoint: this.endpoint, subscriptionId: this.subscriptionId, maxVms: options.maxVms ?? DEFAULT_MAX_VMS, now: () => this.clock.now() };
    return listVmsVia(this.send, resourceGroup, name, mode, { ...listing, ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}) });
  }

  async setCapacity(
    resourceGroup: string,
    name: string,
    capacity: number,
    ifMatchEtag: string,
    options: CallOptions = {},
  ): Promise<LroResult> {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`capacity: expected a whole number ≥ 0, got ${capacity}`);
    }
    const context = { operation: 'set capacity', resource: this.describe(resourceGroup, name), etag: ifMatchEtag };
    try {
      const poller = this.client.virtualMachineScaleSets.update(
        resourceGroup,
        name,
        { sku: { capacity } },
        { ifMatch: ifMatchEtag, updateIntervalInMs: this.lroPollIntervalMs, abortSignal: options.abortSignal },
      );
      return await waitBounded(poller, this.lroWaitMs, context, options.abortSignal);
    } catch (error) {
      throw translateArmError(error, context, this.clock.now());
    }
  }

  async deleteInstances(
    resourceGroup: string,
    name: string,
    instanceIds: readonly string[],
    options: CallOptions = {},
  ): Promise<LroResult> {
    if (instanceIds.length === 0) return { done: true };
    const context = { operation: 'delete instances', resource: this.describe(resourceGroup, name) };
    try {
      const poller = this.client.virtualMachineScaleSets.deleteInstances(
        resourceGroup,
        name,
        { instanceIds: [...instanceIds] },
        { updateIntervalInMs: this.lroPollIntervalMs, abortSignal: options.abortSignal },
      );
      return await waitBounded(poller, this.lroWaitMs, context, options.abortSignal);
    } catch (error) {
      throw translateArmError(error, context, this.clock.now());
    }
  }

  /** The resource group's Azure Monitor autoscale settings: one paged GET through this client's pipeline (autoscale-settings.ts). */
  async listAutoscaleSettings(resourceGroup: string, options: CallOptions = {}): Promise<AutoscaleSettingRecord[]> {
    return listAutoscaleSettingsVia(this.send, resourceGroup, { endpoint: this.endpoint, subscriptionId: this.subscriptionId, abortSignal: options.abortSignal, now: () => this.clock.now() });
  }

  /** A request this adapter builds itself (a VM listing, the autoscale settings), sent through the client's pipeline. */
  private readonly send: SendRequest = (request) => {
    // The client's keep-alive agent: a new TLS context per request costs tens of milliseconds of CPU.
    if (this.agent) request.agent ??= this.agent;
    return this.client.pipeline.sendRequest((this.httpClient ??= createDefaultHttpClient()), request);
  };

  async setPower(
    resourceGroup: string,
    name: string,
    mode: OrchestrationMode,
    power: PowerChange,
    instanceIds: readonly string[],
    options: CallOptions = {},
  ): Promise<LroResult> {
    // Never without ids: ARM would start or deallocate every VM of the scale set.
    if (instanceIds.length === 0) return { done: true };
    const context = { operation: `${power} instances`, resource: this.describe(resourceGroup, name) };
    const lro = { updateIntervalInMs: this.lroPollIntervalMs, abortSignal: options.abortSignal };
    try {
      if (mode === 'Uniform') {
        const vmInstanceIDs = { instanceIds: [...instanceIds] };
        const poller = power === 'start'
          ? this.client.virtualMachineScaleSets.start(resourceGroup, name, { ...lro, vmInstanceIDs })
          : this.client.virtualMachineScaleSets.deallocate(resourceGroup, name, { ...lro, vmInstanceIDs });
        return await waitBounded(poller, this.lroWaitMs, context, options.abortSignal);
      }
      const results = await Promise.all(
        instanceIds.map((vm) => {
          const poller = power === 'start' ? this.client.virtualMachines.start(resourceGroup, vm, lro) : this.client.virtualMachines.deallocate(resourceGroup, vm, lro);
          return waitBounded(poller, this.lroWaitMs, context, options.abortSignal);
        }),
      );
      return results.find((r) => !r.done) ?? { done: true };
    } catch (error) {
      throw translateArmError(error, context, this.clock.now());
    }
  }

  /**
   * Bounds each request (headers and body) by requestTimeoutMs, on top of the caller's signal.
   * A timeout becomes a TimeoutError naming the request; the caller's abort stays an abort.
   */
  private requestTimeout(): PipelinePolicy {
    return {
      name: 'droverRequestTimeout',
      sendRequest: async (request, next) => {
        const caller = request.abortSignal as AbortSignal | undefined;
        const deadline = callDeadline(this.requestTimeoutMs, caller);
        request.abortSignal = deadline.signal;
        try {
          return await next(request);
        } catch (error) {
          if (deadline.timedOut()) throw new TimeoutError(`ARM ${request.method} ${new URL(request.url).pathname}`, this.requestTimeoutMs);
          throw error;
        }
      },
    };
  }

  private describe(resourceGroup: string, name: string): string {
    return `scale set ${resourceGroup}/${name}`;
  }
}
