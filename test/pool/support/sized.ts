/** Pieces the sized-pool tests share (scale-in, warm buffer, rules): the pool's config and the real adapter with some calls replaced. */
import type { ScaleSetApi } from '../../../src/azure/scale-set-api.js';
import type { Runtime } from '../../../src/runtime/runtime.js';

/** A pool on a scale set of the same name in `resourceGroup`, every rate open and the cache listed on every pass. */
export const sizedPool = (resourceGroup: string) => (name: string, extra: object = {}) => ({
  name,
  scaleSet: { resourceGroup, name },
  creationRate: '0s,1',
  deletionRate: '0s,1',
  reconcileRate: '0s,1',
  instanceCache: { ttl: '0s' },
  ...extra,
});

/** The runtime's real adapter with some calls replaced. */
export async function realAdapter(rt: Runtime, replace: Partial<ScaleSetApi>): Promise<ScaleSetApi> {
  const real = await rt.scaleSetApi();
  return {
    getScaleSet: (...a) => real.getScaleSet(...a),
    listVms: (...a) => real.listVms(...a),
    setCapacity: (...a) => real.setCapacity(...a),
    deleteInstances: (...a) => real.deleteInstances(...a),
    setPower: (...a) => real.setPower(...a),
    ...replace,
  };
}
