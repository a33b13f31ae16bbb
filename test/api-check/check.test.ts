// The API check itself: a recorded exchange that follows the specifications passes, and each kind
// of departure fails naming the call and the rule. Reads the specification files from ../shared
// (DROVER_SPECS_DIR names another folder holding arm-specs and k8s-specs).
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedFolder } from '../../sim/shared-folder.js';
import type { RecordedExchange } from '../../sim/recorder.js';
import { loadSpecs, type LoadedSpecs } from '../../sim/api-check/load.js';
import { checkExchanges } from '../../sim/api-check/run.js';
import { coverageGaps, droverCalls } from '../../sim/api-check/coverage.js';

const SHARED = process.env.DROVER_SPECS_DIR ?? path.dirname(sharedFolder('arm-specs'));
const VMSS = '/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool';
const SCALE = '/apis/apps/v1/namespaces/default/deployments/web/scale';

let specs: LoadedSpecs;
beforeAll(() => {
  specs = loadSpecs(path.join(SHARED, 'arm-specs'), path.join(SHARED, 'k8s-specs/v1.34.0/swagger.json'));
});

function arm(method: string, url: string, body: unknown, status: number, answer: unknown = { sku: { capacity: 2 }, location: 'westeurope' }): RecordedExchange {
  return {
    service: 'arm',
    request: { method, url, headers: { authorization: 'present', 'content-type': 'application/json' }, ...(body === undefined ? {} : { body }) },
    response: { status, headers: {}, ...(answer === undefined ? {} : { body: answer }) },
  };
}

function kube(method: string, url: string, contentType: string | undefined, body: unknown, status: number, answer: unknown): RecordedExchange {
  return {
    service: 'kubernetes',
    request: { method, url, headers: contentType ? { 'content-type': contentType } : {}, ...(body === undefined ? {} : { body }) },
    response: { status, headers: {}, body: answer },
  };
}

const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 3 }, status: { replicas: 3 } };
const statusError = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'conflict', reason: 'Conflict', code: 409 };

const rules = (exchange: RecordedExchange) => checkExchanges(specs, [exchange]).violations.map((v) => `${v.call}: ${v.rule}`);

describe('the API check', () => {
  it.each<[string, RecordedExchange]>([
    ['a scale set read with the mapped api-version', arm('GET', `${VMSS}?api-version=2026-03-01`, undefined, 200)],
    ['a capacity PATCH answered 200', arm('PATCH', `${VMSS}?api-version=2026-03-01`, { sku: { capacity: 3 } }, 200)],
    ['an ARM error answer under the default response', arm('GET', `${VMSS}?api-version=2026-03-01`, undefined, 429, { error: { code: 'TooManyRequests', message: 'slow down' } })],
    ['a VM deallocate with forceDeallocate (a listed difference)', arm('POST', '/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm1/deallocate?api-version=2026-03-01&forceDeallocate=false', undefined, 202, undefined)],
    ['a later page following the service\'s nextLink', arm('GET', `${VMSS}/virtualMachines?$expand=instanceView&api-version=2026-03-01&$skiptoken=50`, undefined, 200, { value: [] })],
    ['a malformed answer under a scripted fault', { ...arm('GET', `${VMSS}?api-version=2026-03-01`, undefined, 200, '{"sku": '), fault: 'malformed JSON' }],
    ['a JSON Patch of a Deployment scale', kube('PATCH', SCALE, 'application/json-patch+json', [{ op: 'replace', path: '/spec/replicas', value: 3 }], 200, scale)],
    ['a merge patch of a custom resource scale', kube('PATCH', '/apis/example.com/v1/namespaces/default/widgets/w1/scale', 'application/merge-patch+json', { spec: { replicas: 3 } }, 200, scale)],
    ['a Kubernetes error as a Status object', kube('PATCH', SCALE, 'application/merge-patch+json', { spec: { replicas: 3 } }, 409, statusError)],
    ["a wrong path sent by the ARM simulator's own test (deliberate)", { ...arm('GET', `${VMSS}/nonsense?api-version=2026-03-01`, undefined, 200), source: 'test/sim/arm/sim.test.ts' }],
    ["a bad patch sent by the Kubernetes simulator's own test (deliberate)", { ...kube('PATCH', SCALE, 'application/json-patch+json', { spec: {} }, 400, statusError), source: 'test/sim/kubernetes/server.test.ts' }],
  ])('passes %s', (_name, exchange) => {
    expect(rules(exchange)).toEqual([]);
  });

  it.each<[string, RecordedExchange, string]>([
    ['a wrong path', arm('GET', `${VMSS}/nonsense?api-version=2026-03-01`, undefined, 200), 'no operation of the specifications has this method and path'],
    ['a wrong path from a test of Drover (only the simulators\' own tests are deliberate)', { ...arm('GET', `${VMSS}/nonsense?api-version=2026-03-01`, undefined, 200), source: 'test/sim/arm-like/drover.test.ts' }, 'no operation of the specifications has this method and path'],
    ['a missing api-version', arm('GET', VMSS, undefined, 200), 'required query parameter api-version is missing'],
    ['an api-version with no entry in the map', arm('GET', `${VMSS}?api-version=2030-01-01`, undefined, 200), 'api-version 2030-01-01 has no entry'],
    ['a body field the schema does not have', arm('PATCH', `${VMSS}?api-version=2026-03-01`, { sku: { capacity: 3, bogus: 1 } }, 200), 'request body: /sku/bogus is not in the schema'],
    ['a body field of the wrong type', arm('PATCH', `${VMSS}?api-version=2026-03-01`, { sku: { capacity: 'three' } }, 200), 'request body: .sku.capacity should be integer'],
    ['an undeclared answer status (a PATCH answered 202)', arm('PATCH', `${VMSS}?api-version=2026-03-01`, { sku: { capacity: 3 } }, 202), 'answer status 202 is not one VirtualMachineScaleSets_Update declares'],
    ['an undeclared query parameter', arm('GET', `${VMSS}?api-version=2026-03-01&verbose=1`, undefined, 200), 'query parameter verbose is not declared'],
    ['the autoscale list under resourceGroups', arm('GET', '/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Insights/autoscalesettings?api-version=2022-10-01', undefined, 200, { value: [] }), 'no operation of the specifications'],
    ['a request of a faulted exchange', { ...arm('GET', VMSS, undefined, 200, 'garbage'), fault: 'malformed JSON' }, 'required query parameter api-version is missing'],
    ['a JSON Patch body that is an object', kube('PATCH', SCALE, 'application/json-patch+json', { spec: { replicas: 3 } }, 200, scale), 'RFC 6902 array'],
    ['a merge patch body that is an array', kube('PATCH', SCALE, 'application/merge-patch+json', [{ op: 'replace', path: '/spec/replicas', value: 3 }], 200, scale), 'must be a JSON object'],
    ['a patch Content-Type the operation does not consume', kube('PATCH', SCALE, 'application/json', { spec: { replicas: 3 } }, 200, scale), 'Content-Type "application/json" is not one'],
    ['a Kubernetes error that is no Status', kube('GET', SCALE, undefined, undefined, 404, { error: 'not found' }), 'answer status 404 is not one readAppsV1NamespacedDeploymentScale declares'],
    ['a Scale answer without its required status.replicas', kube('GET', SCALE, undefined, undefined, 200, { ...scale, status: { selector: 'app=web' } }), "should have required property 'replicas'"],
  ])('fails %s', (_name, exchange, rule) => {
    const found = rules(exchange);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(rule);
    expect(found[0]).toMatch(/^(GET|PATCH|POST) \//);
  });

  it('refuses a specification folder that is not there, naming it and --specs', () => {
    expect(() => loadSpecs('/nowhere/arm-specs', path.join(SHARED, 'k8s-specs/v1.34.0/swagger.json'))).toThrow('ARM specifications: no folder /nowhere/arm-specs (give another with --specs DIR)');
  });

  it('names each of Drover\'s calls a recording never made, and none that it made', () => {
    const calls = droverCalls();
    expect(calls.filter((c) => c.operation === undefined)).toEqual([]);
    const all = new Set(calls.map((c) => c.operation!));
    expect(coverageGaps(calls, all)).toEqual([]);
    all.delete('VirtualMachines_Deallocate');
    expect(coverageGaps(calls, all)).toEqual(['client.virtualMachines.deallocate: no recorded exchange of VirtualMachines_Deallocate']);
  });
});
