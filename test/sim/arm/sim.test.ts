import { request } from 'node:https';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import type { ArmSim } from '../../../sim/arm/index.js';
import { startArmSim } from '../../../sim/arm/index.js';

const API = 'api-version=2026-03-01';
const clock = new ManualClock();
let sim: ArmSim;
let rg: string;
let seq = 0;

beforeAll(async () => {
  sim = await startArmSim({ clock, pageSize: 2, provisionDelayMs: 10_000, deleteDelayMs: 5_000 });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  rg = `rg-sim-${++seq}`;
  sim.resetCounts();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON under test
}

/** A raw HTTPS call that trusts only the simulator's certificate. */
function call(method: string, pathOrUrl: string, options: { body?: unknown; headers?: Record<string, string>; token?: string | null } = {}): Promise<Answer> {
  const url = new URL(pathOrUrl, sim.url);
  const text = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca: sim.caPem,
        headers: {
          ...(options.token === null ? {} : { authorization: `Bearer ${options.token ?? 'any'}` }),
          ...(text ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw ? JSON.parse(raw) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const vmss = (name: string) =>
  `/subscriptions/${sim.subscriptionId}/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`;

describe('requests', () => {
  it('need a bearer token (any value)', async () => {
    sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    expect((await call('GET', `${vmss('uni')}?${API}`, { token: null })).status).toBe(401);
    expect((await call('GET', `${vmss('uni')}?${API}`, { token: 'whatever' })).status).toBe(200);
    expect(sim.counts).toMatchObject({ requests: 2, unauthorized: 1, getScaleSet: 1 });
  });

  it('need an api-version', async () => {
    sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    expect((await call('GET', vmss('uni'))).body.error.code).toBe('MissingApiVersionParameter');
  });

  it('to another subscription are not found', async () => {
    sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    const path = vmss('uni').replace(sim.subscriptionId, '11111111-1111-1111-1111-111111111111');
    expect((await call('GET', `${path}?${API}`)).body.error.code).toBe('SubscriptionNotFound');
  });

  it('match resource groups and names in any case', async () => {
    sim.addScaleSet({ resourceGroup: rg, name: 'Uni' });
    const answer = await call('GET', `${vmss('uni').replace(rg, rg.toUpperCase())}?${API}`);
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(vmss('Uni'));
  });
});

describe('scale set writes', () => {
  it('change the ETag on every write and honour If-Match', async () => {
    sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 1 });
    const { body, headers } = await call('GET', `${vmss('uni')}?${API}`);
    expect(headers.etag).toBe(body.etag);
    const stale = await call('PATCH', `${vmss('uni')}?${API}`, { body: { sku: { capacity: 2 } }, headers: { 'if-match': '"999"' } });
    expect(stale.status).toBe(412);
    const ok = await call('PATCH', `${vmss('uni')}?${API}`, { body: { sku: { capacity: 2 } }, headers: { 'if-match': body.etag } });
    expect(ok.status).toBe(200);
    expect(ok.body.etag).not.toBe(body.etag);
    const again = await call('PATCH', `${vmss('uni')}?${API}`, { body: { sku: { capacity: 3 } }, headers: { 'if-match': body.etag } });
    expect(again.status).toBe(412);
    const put = await call('PUT', `${vmss('uni')}?${API}`, { body: { sku: { capacity: 2 } }, headers: { 'if-match': '*' } });
    expect(put.status).toBe(200);
    expect(sim.scaleSet(rg, 'uni').capacity).toBe(2);
  });

  it('refuse a capacity that is not a whole number', async () => {
    sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    expect((await call('PATCH', `${vmss('uni')}?${API}`, { body: { sku: { capacity: 1.5 } } })).status).toBe(400);
  });
});

describe('VM lifecycles', () => {
  it('a capacity increase creates VMs that go Creating → Succeeded after the delay, polled through Azure-AsyncOperation', async () => {
    const control = sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 1 });
    const answer = await call('PATCH', `${vmss('uni')}?${API}`, { body: { sku: { capacity: 3 } } });
    const operation = answer.headers['azure-asyncoperation'] as string;
    expect(answer.body.properties.provisioningState).toBe('Updating');
    expect(control.vms().map((vm) => [vm.provisioningState, vm.powerState])).toEqual([
      ['Succeeded', 'PowerState/running'],
      ['Creating', 'PowerState/starting'],
      ['Creating', 'PowerState/starting'],
    ]);
    expect((await call('GET', operation)).body.status).toBe('InProgress');
    clock.advance(9_999);
    expect((await call('GET', operation)).body.status).toBe('InProgress');
    clock.advance(1);
    expect((await call('GET', operation)).body.status).toBe('Succeeded');
    expect(control.vms().map((vm) => vm.provisioningState)).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
  });

  it('scripted creation failures end Failed and stopped', async () => {
    const control = sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    control.failNextCreations(1);
    await call('PATCH', `${vmss('uni')}?${API}`, { body: { sku: { capacity: 2 } } });
    clock.advance(10_000);
    expect(control.vms().map((vm) => [vm.provisioningState, vm.powerState])).toEqual([
      ['Failed', 'PowerState/stopped'],
      ['Succeeded', 'PowerState/running'],
    ]);
  });

  it('delete instances: Deleting at once, gone after the delay; Location answers 202 then 200', async () => {
    const control = sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 3 });
    const answer = await call('POST', `${vmss('uni')}/delete?${API}`, { body: { instanceIds: ['1'] } });
    expect(answer.status).toBe(202);
    const location = answer.headers.location as string;
    expect(control.vms().map((vm) => vm.provisioningState)).toEqual(['Succeeded', 'Deleting', 'Succeeded']);
    expect(control.capacity).toBe(2);
    expect((await call('GET', location)).status).toBe(202);
    clock.advance(5_000);
    expect((await call('GET', location)).status).toBe(200);
    expect(control.vms().map((vm) => vm.instanceId)).toEqual(['0', '2']);
    expect(sim.counts).toMatchObject({ deleteInstances: 1, pollOperation: 2 });
  });

  it('a capacity decrease deletes the newest VMs', async () => {
    const control = sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 3 });
    await call('PATCH', `${vmss('uni')}?${API}`, { body: { sku: { capacity: 1 } } });
    expect(control.vms().map((vm) => vm.provisioningState)).toEqual(['Succeeded', 'Deleting', 'Deleting']);
    clock.advance(5_000);
    expect(control.vms().map((vm) => vm.instanceId)).toEqual(['0']);
  });

  it('deleting an unknown instance is refused and deletes nothing', async () => {
    const control = sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 2 });
    const answer = await call('POST', `${vmss('uni')}/delete?${API}`, { body: { instanceIds: ['0', '7'] } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('7');
    expect(control.vms().map((vm) => vm.provisioningState)).toEqual(['Succeeded', 'Succeeded']);
  });
});

describe('VM lists', () => {
  it('Uniform: pages through nextLink, instance view only when expanded', async () => {
    sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 3 });
    const first = await call('GET', `${vmss('uni')}/virtualMachines?${API}&$expand=instanceView`);
    expect(first.body.value).toHaveLength(2);
    expect(first.body.value[0].properties.instanceView.statuses[1].code).toBe('PowerState/running');
    const second = await call('GET', first.body.nextLink);
    expect(second.body.value.map((vm: { instanceId: string }) => vm.instanceId)).toEqual(['2']);
    expect(second.body.nextLink).toBeUndefined();
    const bare = await call('GET', `${vmss('uni')}/virtualMachines?${API}`);
    expect(bare.body.value[0].properties.instanceView).toBeUndefined();
    expect(sim.counts).toMatchObject({ listVms: 2, listVmsPages: 3 });
  });

  it('Uniform listing of a Flexible scale set is refused', async () => {
    sim.addScaleSet({ resourceGroup: rg, name: 'flex', orchestrationMode: 'Flexible' });
    expect((await call('GET', `${vmss('flex')}/virtualMachines?${API}`)).status).toBe(400);
  });

  it('Flexible: filtered by scale set id; expand without a filter is refused', async () => {
    const flex = sim.addScaleSet({ resourceGroup: rg, name: 'flex', orchestrationMode: 'Flexible', capacity: 1 });
    sim.addScaleSet({ resourceGroup: rg, name: 'other', orchestrationMode: 'Flexible', capacity: 1 });
    const vms = `/subscriptions/${sim.subscriptionId}/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachines`;
    const filter = encodeURIComponent(`'virtualMachineScaleSet/id' eq '${flex.id}'`);
    const filtered = await call('GET', `${vms}?${API}&$filter=${filter}&$expand=instanceView`);
    expect(filtered.body.value.map((vm: { id: string }) => vm.id)).toEqual(flex.vms().map((vm) => vm.id));
    expect((await call('GET', `${vms}?${API}`)).body.value).toHaveLength(2);
    expect((await call('GET', `${vms}?${API}&$expand=instanceView`)).status).toBe(400);
  });

  it('scripted instance views: none, no statuses, extension statuses', async () => {
    sim.addScaleSet({
      resourceGroup: rg,
      name: 'uni',
      vms: [
        { instanceView: false },
        { statuses: null, provisioningState: null },
        { extensions: [{ name: 'vmssCSE', statuses: [{ level: 'Error', message: 'exit 1' }] }] },
      ],
    });
    const { body } = await call('GET', `${vmss('uni')}/virtualMachines?${API}&$expand=instanceView`);
    const page2 = await call('GET', body.nextLink);
    const [none, bare, cse] = [...body.value, ...page2.body.value];
    expect(none.properties.instanceView).toBeUndefined();
    expect(bare.properties).toEqual({ latestModelApplied: true, timeCreated: expect.any(String), instanceView: {} });
    expect(cse.properties.instanceView.extensions).toEqual([{ name: 'vmssCSE', statuses: [{ level: 'Error', message: 'exit 1' }] }]);
  });
});

describe('throttling on demand', () => {
  it('answers the next N matching requests 429 with Retry-After, counting them', async () => {
    sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 1 });
    sim.throttleNext(2, { retryAfter: 30, operations: ['listVms'] });
    expect((await call('GET', `${vmss('uni')}?${API}`)).status).toBe(200);
    const throttled = await call('GET', `${vmss('uni')}/virtualMachines?${API}`);
    expect(throttled.status).toBe(429);
    expect(throttled.headers['retry-after']).toBe('30');
    expect((await call('GET', `${vmss('uni')}/virtualMachines?${API}`)).status).toBe(429);
    expect((await call('GET', `${vmss('uni')}/virtualMachines?${API}`)).status).toBe(200);
    expect(sim.counts).toMatchObject({ getScaleSet: 1, listVms: 3, throttled: 2 });
  });

  it('sends the rate-limit headers on every response', async () => {
    sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    const { headers } = await call('GET', `${vmss('uni')}?${API}`);
    expect(headers['x-ms-ratelimit-remaining-subscription-reads']).toBe('11999');
    expect(headers['x-ms-ratelimit-remaining-resource']).toContain('Microsoft.Compute/GetVMScaleSet3Min;');
  });
});

describe('control API', () => {
  it('adds, updates and removes VMs, keeping capacity in step', () => {
    const control = sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    const vm = control.addVm({ provisioningState: 'Creating' });
    expect(control.capacity).toBe(1);
    expect(control.updateVm(vm.instanceId, { provisioningState: 'Succeeded' }).provisioningState).toBe('Succeeded');
    control.removeVm(vm.name);
    expect([control.capacity, control.vms()]).toEqual([0, []]);
    expect(() => sim.scaleSet(rg, 'missing')).toThrow('missing');
    expect(() => sim.addScaleSet({ resourceGroup: rg, name: 'uni' })).toThrow('already exists');
  });
});
