/**
 * The instance cache's record of one VM, as `drover status` shows it: `state` is `null` when
 * unknown (a VM whose provisioning state says nothing and that the cache did not know before).
 */

export type InstanceState = 'Running' | 'Creating' | 'Deleting';

export interface InstanceErrorInfo {
  errorClass: 'OutOfResources' | 'Other';
  errorCode: string;
  errorMessage: string;
}

export interface InstanceStatus {
  state: InstanceState | null;
  errorInfo: InstanceErrorInfo | null;
}

export interface CachedInstance extends InstanceStatus {
  /** Provider id: `azure://` + resource id with the resource group lower-cased. */
  id: string;
  name: string;
  /** The power state the status was derived from (`PowerState/…`). */
  powerState: string;
  /**
   * ARM's provisioning state as listed: `state` follows the seed's mapping (a Deleting VM whose
   * extension failed maps to Creating), this says what ARM does with the VM.
   */
  provisioningState?: string;
  zone?: string;
  /** Epoch ms. */
  timeCreated?: number;
  protectFromScaleIn?: boolean;
  protectFromScaleSetActions?: boolean;
}

export const UNKNOWN_STATUS: InstanceStatus = Object.freeze({ state: null, errorInfo: null });
