/** How a cached instance is stored as a table row (Table Storage has no nested values). */
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

export function instanceToProps(i: CachedInstance): InstanceProps {
  return {
    name: i.name,
    state: i.state ?? '',
    powerState: i.powerState,
    errorClass: i.errorInfo?.errorClass,
    errorCode: i.errorInfo?.errorCode,
    errorMessage: i.errorInfo?.errorMessage,
  };
}

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
