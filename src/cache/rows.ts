/**
 * How a cached instance was stored in the old one-row-per-VM format: read once when a partition
 * of that format is migrated (cache-store.ts); nothing writes it any more.
 */
import type { CachedInstance, InstanceState } from './instance.js';

export type InstanceProps = {
  name: string;
  /** '' when the state is unknown. */
  state: string;
  powerState: string;
  errorClass?: string;
  errorCode?: string;
  errorMessage?: string;
  provisioningState?: string;
  zone?: string;
  timeCreated?: number;
  protectFromScaleIn?: boolean;
  protectFromScaleSetActions?: boolean;
};

export function instanceFromRow(row: { rowKey: string; props: InstanceProps }): CachedInstance {
  const p = row.props;
  const instance: CachedInstance = {
    id: row.rowKey,
    name: p.name,
    powerState: p.powerState,
    state: (p.state || null) as InstanceState | null,
    errorInfo:
      p.errorClass && p.errorCode !== undefined
        ? { errorClass: p.errorClass as 'OutOfResources' | 'Other', errorCode: p.errorCode, errorMessage: p.errorMessage ?? '' }
        : null,
  };
  // Only the fields a row has: a record read back equals the one written.
  if (p.provisioningState !== undefined) instance.provisioningState = p.provisioningState;
  if (p.zone !== undefined) instance.zone = p.zone;
  if (p.timeCreated !== undefined) instance.timeCreated = p.timeCreated;
  if (p.protectFromScaleIn) instance.protectFromScaleIn = true;
  if (p.protectFromScaleSetActions) instance.protectFromScaleSetActions = true;
  return instance;
}
