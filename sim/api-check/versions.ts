/**
 * The one api-version map: what Drover sends → the specification version it is checked against,
 * per specification file, and the known differences between the two, each with its reason.
 * A version sent that is not here, or a difference not listed, fails the check.
 */
import { AUTOSCALE_API_VERSION } from '../../src/azure/autoscale-settings.js';
import { METRICS_API_VERSION } from '../../src/load/azure-monitor-source.js';
import { COMPUTE_API_VERSION } from '../../src/azure/vm-listing.js';

export interface SpecFile {
  /** Short name, used in messages and in the map. */
  name: 'compute-vmss' | 'compute-vm' | 'autoscale' | 'metrics';
  /** Relative to the ARM specs folder. */
  path: string;
}

const COMPUTE = 'specification/compute/resource-manager/Microsoft.Compute/ComputeRP/stable/2024-07-01';
const INSIGHTS = 'specification/monitor/resource-manager/Microsoft.Insights/stable';

export const ARM_SPEC_FILES: readonly SpecFile[] = [
  { name: 'compute-vmss', path: `${COMPUTE}/virtualMachineScaleSet.json` },
  { name: 'compute-vm', path: `${COMPUTE}/virtualMachine.json` },
  { name: 'autoscale', path: `${INSIGHTS}/2022-10-01/autoscale_API.json` },
  { name: 'metrics', path: `${INSIGHTS}/2024-02-01/metrics_API.json` },
];

export interface VersionMapping {
  /** The `info.version` of the specification files it maps to. */
  specVersion: string;
  /** The api-version Drover sends for their operations. */
  sent: string;
  why: string;
}

export const API_VERSION_MAP: readonly VersionMapping[] = [
  {
    specVersion: '2024-07-01',
    sent: COMPUTE_API_VERSION,
    why: '@azure/arm-compute 24.1 sends 2026-03-01; 2024-07-01 is the newest stable Compute folder in the specs, and the calls Drover makes keep their paths, parameters and answers between the two (but for the differences below)',
  },
  { specVersion: '2022-10-01', sent: AUTOSCALE_API_VERSION, why: 'autoscale settings: the version Drover sends is the specification' },
  { specVersion: '2024-02-01', sent: METRICS_API_VERSION, why: 'Azure Monitor metrics: the version the specification defines' },
];

export interface KnownDifference {
  operationId: string;
  /** A query parameter the newer api-version has and the specification file does not. */
  queryParameter: string;
  why: string;
}

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    operationId: 'VirtualMachines_Deallocate',
    queryParameter: 'forceDeallocate',
    why: 'added to VM deallocate after 2024-07-01; the SDK of 2026-03-01 may send it, and the real service accepts it',
  },
];

export function specVersionFor(sent: string | null, specVersion: string): VersionMapping | undefined {
  return API_VERSION_MAP.find((m) => m.sent === sent && m.specVersion === specVersion);
}

export function knownDifference(operationId: string, queryParameter: string): KnownDifference | undefined {
  return KNOWN_DIFFERENCES.find((d) => d.operationId === operationId && d.queryParameter === queryParameter);
}
