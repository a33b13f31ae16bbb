/**
 * The narrow port through which Drover reads and changes scale sets in ARM. The compute adapter
 * (`compute-adapter.ts`) implements it over `@azure/arm-compute`; tests may fake it.
 *
 * Every method throws only the domain errors of `errors.ts` (`RateLimitedError` with source
 * 'arm', `ArmNotFoundError`, `ArmPreconditionFailedError`, `ArmConflictError`,
 * `ArmOperationFailedError`, `ArmRequestError`); no SDK error leaves the adapter. No method
 * retries: a failed call is retried on a later pass. The adapter keeps no per-call state: what a
 * response said about the rate-limit budget comes back with that response (`listVms`).
 */

export type OrchestrationMode = 'Uniform' | 'Flexible';

export interface ScaleSetInfo {
  /** ARM resource id, in the case ARM answers with. */
  id: string;
  name: string;
  location: string | undefined;
  /** As ARM reports it; `undefined` when absent. Checked by `cache/orchestration.ts`. */
  orchestrationMode: string | undefined;
  /** `sku.capacity`; `undefined` when ARM did not report one (never guess a size). */
  capacity: number | undefined;
  /** The scale set's ETag, for `setCapacity`'s If-Match. */
  etag: string | undefined;
  provisioningState: string | undefined;
  /**
   * The model's VM priority as ARM reports it (`Regular`, `Low`, `Spot`); `undefined` when
   * absent. Spot (and the older Low) VMs can be evicted by Azure.
   */
  priority?: string;
  /** `properties.overprovision` as ARM reports it (Uniform only; Flexible has none). */
  overprovision?: boolean;
  /** `virtualMachineProfile.scheduledEventsProfile.terminateNotificationProfile`, when ARM reports one. */
  terminateNotification?: TerminateNotification;
}

/** Whether a VM about to be deleted gets a Terminate scheduled event first, and how long before. */
export interface TerminateNotification {
  enabled: boolean;
  /** ISO 8601 duration (`PT5M`), as ARM has it. */
  notBeforeTimeout?: string;
}

export interface VmStatusRecord {
  code?: string;
  /** 'Info' | 'Warning' | 'Error' in ARM. */
  level?: string;
  message?: string;
}

export interface VmExtensionRecord {
  name?: string;
  statuses?: VmStatusRecord[];
}

/** What the instance cache needs of one VM; `undefined` fields were absent in ARM's answer. */
export interface VmRecord {
  /** ARM resource id ('' when ARM gave none, which happens while a VM is being deleted). */
  id: string;
  name: string;
  /** Uniform: the scale set instance id. Flexible: the VM name (what deleteInstances expects). */
  instanceId: string | undefined;
  provisioningState: string | undefined;
  /** The VM's availability zone, when it has one. */
  zone?: string;
  /** When the VM was created (epoch ms), when ARM says. */
  timeCreated?: number;
  /** Uniform `protectionPolicy` (Flexible VMs have none: always false there). */
  protectFromScaleIn?: boolean;
  protectFromScaleSetActions?: boolean;
  /** `undefined` when ARM returned no instance view for this VM. */
  instanceView: { statuses?: VmStatusRecord[]; extensions?: VmExtensionRecord[] } | undefined;
}

/**
 * Result of a long-running operation that was waited on for a bounded time only.
 * `done: false` means ARM accepted the change and is still working: re-read the scale set on a
 * later pass (delayed re-enqueue) instead of waiting inside this invocation.
 */
export type LroResult = { done: true } | { done: false; waitedMs: number };

/** Remaining request budgets from the `x-ms-ratelimit-remaining-*` headers of a response. */
export interface RateLimitRemaining {
  /** `x-ms-ratelimit-remaining-subscription-reads`. */
  subscriptionReads: number | undefined;
  /** `x-ms-ratelimit-remaining-subscription-writes`. */
  subscriptionWrites: number | undefined;
  /** `x-ms-ratelimit-remaining-resource`: one entry per compute throttling policy. */
  resource: { policy: string; remaining: number }[];
  /** When the response carrying these values arrived (epoch ms). */
  observedAt: number;
}

/** One listing of a scale set's VMs, with the budget ARM reported on its responses. */
export interface VmListing {
  vms: VmRecord[];
  /** From the last response of the listing that carried the headers; `null` when none did. */
  rateLimit: RateLimitRemaining | null;
}

export interface CallOptions {
  abortSignal?: AbortSignal;
  /**
   * `listVms` only: refuse a listing with more VMs than this (a pool's instanceLimit), and stop
   * following nextLink there, so a misbehaving endpoint cannot page without end. Default 1,000.
   */
  maxVms?: number;
}

export interface ScaleSetApi {
  /** The scale set. @throws ArmNotFoundError when it (or its resource group) does not exist. */
  getScaleSet(resourceGroup: string, name: string, options?: CallOptions): Promise<ScaleSetInfo>;
  /**
   * Every VM of the scale set with its instance view, in ARM's order, all pages read.
   * Uniform lists the scale set's VMs; Flexible lists the resource group's VMs filtered by
   * `virtualMachineScaleSet/id`. @throws ArmNotFoundError when the scale set does not exist.
   */
  listVms(
    resourceGroup: string,
    name: string,
    mode: OrchestrationMode,
    options?: CallOptions,
  ): Promise<VmListing>;
  /**
   * Sets `sku.capacity`, guarded by `If-Match: ifMatchEtag`.
   * @throws ArmPreconditionFailedError when the scale set changed since the ETag was read.
   */
  setCapacity(
    resourceGroup: string,
    name: string,
    capacity: number,
    ifMatchEtag: string,
    options?: CallOptions,
  ): Promise<LroResult>;
  /** Deletes the given instances (instance ids for Uniform, VM names for Flexible). */
  deleteInstances(
    resourceGroup: string,
    name: string,
    instanceIds: readonly string[],
    options?: CallOptions,
  ): Promise<LroResult>;
  /**
   * Starts (`start`) or deallocates (`deallocate`) the given instances: Uniform, one batch call
   * by instance id; Flexible, one call per VM name (ARM has no batch call there). An empty list
   * makes no call at all (ARM would apply it to every VM of the scale set).
   */
  setPower(
    resourceGroup: string,
    name: string,
    mode: OrchestrationMode,
    power: PowerChange,
    instanceIds: readonly string[],
    options?: CallOptions,
  ): Promise<LroResult>;
}

export type PowerChange = 'start' | 'deallocate';
