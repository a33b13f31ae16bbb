/**
 * ScaleSetApi over `@azure/arm-compute`. Built once per process by the composition root;
 * it keeps no per-call state: a listing's rate-limit budget is returned with the listing.
 *
 * The SDK's own retries are off: a 429 must reach the cache (which keeps serving cached
 * instances and moves its next refresh past Retry-After) instead of being slept on inside an
 * invocation, and any other failure is retried by the next pass.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
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
import { AbortedError, TimeoutError, callDeadline, reasonOf } from '../deadline.js';
import { waitBounded } from './lro.js';
import { rateLimitFromHeaders } from './rate-limit-headers.js';
import { flexibleVmRecord, scaleSetInfoOf, uniformVmRecord } from './records.js';
import { listAutoscaleSettingsVia, type AutoscaleSettingRecord, type AutoscaleSettingsApi, type SendRequest } from './autoscale-settings.js';
import { createDefaultHttpClient, type HttpClient } from '@azure/core-rest-pipeline';
import type {
  CallOptions,
  LroResult,
  OrchestrationMode,
  PowerChange,
  RateLimitRemaining,
  ScaleSetApi,
  ScaleSetInfo,
  VmListing,
  VmRecord,
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

/** The budget seen on the responses of one call. */
interface BudgetSeen {
  latest: RateLimitRemaining | null;
  /** ARM's error body of a failed response (capped): the SDK's pager drops it from its error. */
  errorBody?: string;
}

const MAX_ERROR_BODY_CHARS = 8_192;

/**
 * The call a response belongs to: the client (and its pipeline) is shared by concurrent calls,
 * so each call that wants its budget runs in a scope of its own and gets only its responses'.
 */
const budgetScope = new AsyncLocalStorage<BudgetSeen>();

class ComputeScaleSetApi implements ScaleSetApi, AutoscaleSettingsApi {
  private readonly client: ComputeManagementClient;
  private readonly clock: Clock;
  private readonly lroWaitMs: number;
  private readonly lroPollIntervalMs: number;
  private readonly requestTimeoutMs: number;
  /** For the requests this adapter sends through the client's pipeline itself (the autoscale settings). */
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
        { policy: this.budgetRecorder(), position: 'perRetry' },
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
    const context = { operation: `list ${mode} VMs`, resource: this.describe(resourceGroup, name) };
    const vms: VmRecord[] = [];
    const maxVms = options.maxVms ?? DEFAULT_MAX_VMS;
    // An endpoint could answer empty pages with a nextLink for ever: no more pages than VMs allowed.
    const maxPages = maxVms + 1;
    const seen: BudgetSeen = { latest: null };
    let count = 0;
    try {
      // Every page's response passes the budget recorder inside this scope, and only this listing's.
      await budgetScope.run(seen, async () => {
        const filter = `'virtualMachineScaleSet/id' eq '${this.scaleSetId(resourceGroup, name).replace(/'/g, "''")}'`;
        const pages =
          mode === 'Uniform'
            ? this.client.virtualMachineScaleSetVMs.list(resourceGroup, name, { expand: 'instanceView', abortSignal: options.abortSignal }).byPage()
            : this.client.virtualMachines.list(resourceGroup, { filter, expand: 'instanceView', abortSignal: options.abortSignal }).byPage();
        for await (const page of pages) {
          if (options.abortSignal?.aborted) throw new AbortedError(reasonOf(options.abortSignal).message);
          if (++count > maxPages) throw new Error(`more than ${maxPages} pages, stopped (at most ${maxVms} VMs are listed)`);
          for (const vm of page) vms.push(mode === 'Uniform' ? uniformVmRecord(vm) : flexibleVmRecord(vm as Parameters<typeof flexibleVmRecord>[0]));
          if (vms.length > maxVms) throw new Error(`more than ${maxVms} VMs, stopped (raise instanceLimit if the scale set is meant to be this large)`);
        }
      });
    } catch (error) {
      throw translateArmError(error, { ...context, afterFirstPage: count > 0, errorBody: seen.errorBody }, this.clock.now());
    }
    return { vms, rateLimit: seen.latest };
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
    const send: SendRequest = (request) => {
      // The client's keep-alive agent: a new TLS context per request costs tens of milliseconds of CPU.
      if (this.agent) request.agent ??= this.agent;
      return this.client.pipeline.sendRequest((this.httpClient ??= createDefaultHttpClient()), request);
    };
    return listAutoscaleSettingsVia(send, resourceGroup, { endpoint: this.endpoint, subscriptionId: this.subscriptionId, abortSignal: options.abortSignal, now: () => this.clock.now() });
  }

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

  /** Hands the budget of each response to the call it belongs to (see `budgetScope`); calls outside a scope are not watched. */
  private budgetRecorder(): PipelinePolicy {
    return {
      name: 'droverRateLimitBudget',
      sendRequest: async (request, next) => {
        const response = await next(request);
        const seen = budgetScope.getStore();
        if (seen && response.status >= 400 && typeof response.bodyAsText === 'string') seen.errorBody = response.bodyAsText.slice(0, MAX_ERROR_BODY_CHARS);
        const budget = seen ? rateLimitFromHeaders(response.headers, this.clock.now()) : null;
        if (seen && budget) seen.latest = budget;
        return response;
      },
    };
  }

  private scaleSetId(resourceGroup: string, name: string): string {
    return `/subscriptions/${this.subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`;
  }

  private describe(resourceGroup: string, name: string): string {
    return `scale set ${resourceGroup}/${name}`;
  }
}
