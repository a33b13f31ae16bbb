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
};

export function instanceFromRow(row: { rowKey: string; props: InstanceProps }): CachedInstance {
  const p = row.props;
  return {
    id: row.rowKey,
    name: p.name,
    powerState: p.powerState,
    state: (p.state || null) as InstanceState | null,
    errorInfo:
      p.errorClass && p.errorCode !== undefined
        ? { errorClass: p.errorClass as 'OutOfResources' | 'Other', errorCode: p.errorCode, errorMessage: p.errorMessage ?? '' }
        : null,
  };
}
