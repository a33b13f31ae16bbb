// Drover's adapters parse every official example answer of the ARM operations they read (the
// `x-ms-examples` of the specification files in ../shared/arm-specs, one row per example file):
// payloads nobody on the project wrote. A later page an example's nextLink points at answers empty.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createHttpHeaders, type PipelineRequest, type PipelineResponse } from '@azure/core-rest-pipeline';
import type { VirtualMachineScaleSet } from '@azure/arm-compute';
import { describe, expect, it } from 'vitest';
import { sharedFolder } from '../../sim/shared-folder.js';
import { listVmsVia } from '../../src/azure/vm-listing.js';
import { listAutoscaleSettingsVia } from '../../src/azure/autoscale-settings.js';
import { scaleSetInfoOf } from '../../src/azure/records.js';

const SPECS = path.join(process.env.DROVER_SPECS_DIR ?? path.dirname(sharedFolder('arm-specs')), 'arm-specs');
const COMPUTE = 'specification/compute/resource-manager/Microsoft.Compute/ComputeRP/stable/2024-07-01';
const ENDPOINT = 'https://management.azure.com';

type Json = Record<string, unknown>;

/** Every example file the operation names: [example file, its 200 answer body]. */
function examples(specFile: string, operationId: string): [string, Json][] {
  const file = path.join(SPECS, specFile);
  const spec = JSON.parse(readFileSync(file, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string; 'x-ms-examples'?: Record<string, { $ref: string }> }>> };
  const op = Object.values(spec.paths).flatMap((item) => Object.values(item)).find((o) => o.operationId === operationId);
  return Object.values(op?.['x-ms-examples'] ?? {}).map(({ $ref }) => {
    const example = JSON.parse(readFileSync(path.resolve(path.dirname(file), $ref), 'utf8')) as { responses: Record<string, { body: Json }> };
    return [path.basename($ref), example.responses['200']!.body];
  });
}

function serving(body: Json) {
  let first = true;
  return (request: PipelineRequest): Promise<PipelineResponse> => {
    const text = JSON.stringify(first ? body : { value: [] });
    first = false;
    return Promise.resolve({ request, status: 200, headers: createHttpHeaders({ 'content-type': 'application/json' }), bodyAsText: text });
  };
}

const options = { endpoint: ENDPOINT, subscriptionId: 's', maxVms: 1000, now: () => 0 };

describe('official example answers, parsed by the adapters', () => {
  it.each(examples(`${COMPUTE}/virtualMachineScaleSet.json`, 'VirtualMachineScaleSets_Get'))('VirtualMachineScaleSets_Get: %s', (_file, body) => {
    const info = scaleSetInfoOf(body as unknown as VirtualMachineScaleSet);
    expect(info.name).toBe(body.name);
    expect(info.capacity).toBe((body.sku as { capacity?: number } | undefined)?.capacity);
  });

  it.each(examples(`${COMPUTE}/virtualMachineScaleSet.json`, 'VirtualMachineScaleSetVMs_List'))('VirtualMachineScaleSetVMs_List: %s', async (_file, body) => {
    const listing = await listVmsVia(serving(body), 'rg', 'pool', 'Uniform', options);
    expect(listing.vms.map((vm) => vm.name)).toEqual((body.value as Json[]).map((vm) => vm.name ?? ''));
  });

  it.each(examples(`${COMPUTE}/virtualMachine.json`, 'VirtualMachines_List'))('VirtualMachines_List: %s', async (_file, body) => {
    // Flexible listing filters by scale set on the server; the example's VMs are taken as its answer.
    const listing = await listVmsVia(serving(body), 'rg', 'pool', 'Flexible', options);
    expect(listing.vms.map((vm) => vm.name)).toEqual((body.value as Json[]).map((vm) => vm.name ?? ''));
  });

  it.each(examples('specification/monitor/resource-manager/Microsoft.Insights/stable/2022-10-01/autoscale_API.json', 'AutoscaleSettings_ListByResourceGroup'))(
    'AutoscaleSettings_ListByResourceGroup: %s',
    async (_file, body) => {
      const settings = await listAutoscaleSettingsVia(serving(body), 'rg', { endpoint: ENDPOINT, subscriptionId: 's', now: () => 0 });
      expect(settings.map((s) => s.name)).toEqual((body.value as Json[]).map((s) => s.name ?? ''));
    },
  );
});
