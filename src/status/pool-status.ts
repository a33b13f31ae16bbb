import type { PoolConfig } from '../config/schema.js';
import type { Runtime } from '../runtime/runtime.js';

export interface InstanceStatusView {
  id: string;
  state: 'Running' | 'Creating' | 'Deleting' | null;
  powerState: string | null;
  errorInfo: { errorClass: 'OutOfResources' | 'Other'; errorCode: string; errorMessage: string } | null;
}

export interface PoolStatus {
  name: string;
  scaleSet: { resourceGroup: string; name: string; orchestrationMode: string | null; capacity: number | null };
  cache: { lastRefresh: string | null; size: number; nextRefresh?: string | null } | null;
  instances: InstanceStatusView[];
  machines: { providerId: string; providerStatus: string | null; address: string | null }[];
  safetySwitch: { providerOnly: string[]; inventoryOnly: string[]; since: string } | null;
}

export async function poolStatus(_rt: Runtime, pool: PoolConfig): Promise<PoolStatus> {
  return {
    name: pool.name,
    scaleSet: { resourceGroup: pool.scaleSet.resourceGroup, name: pool.scaleSet.name, orchestrationMode: null, capacity: null },
    cache: null,
    instances: [],
    machines: [],
    safetySwitch: null,
  };
}
