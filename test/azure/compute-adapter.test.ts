import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createComputeScaleSetApi } from '../../src/azure/compute-adapter.js';
import { ArmNotFoundError, ArmPreconditionFailedError, ArmRequestError, CredentialConfigError, RateLimitedError } from '../../src/azure/errors.js';
import type { ScaleSetApi } from '../../src/azure/scale-set-api.js';
import { ManualClock } from '../../src/clock.js';
import type { SimHarness } from '../sim/arm/harness.js';
import { startSimHarness } from '../sim/arm/harness.js';

const DELAY = 60_000;
const clock = new ManualClock();
let h: SimHarness;
let api: ScaleSetApi;
let rg: string;
let seq = 0;

beforeAll(async () => {
  h = await startSimHarness(
    { clock, pageSize: 3, provisionDelayMs: DELAY, deleteDelayMs: DELAY },
    { clock, lroWaitMs: 150, lroPollIntervalMs: 10 },
  );
  api = h.api;
});
afterAll(async () => {
  await h.stop();
});
beforeEach(() => {
  rg = `RG-Adapter-${++seq}`;
  h.sim.resetCounts();
});

/** Rejection of `promise`, for checks on the error's type and fields. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Runs `start`, moving the simulator's clock past every scheduled change until it settles. */
async function advancedWhilePending<T>(start: () => Promise<T>): Promise<T> {
  let settled = false;
  const pending = start().finally(() => {
    settled = true;
  });
  while (!settled) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock.advance(DELAY);
  }
  return pending;
}

describe('get scale set', () => {
  it('reads orchestration mode, capacity and ETag', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 2 });
    h.sim.addScaleSet({ resourceGroup: rg, name: 'flex', orchestrationMode: 'Flexible', capacity: 1 });
    expect(await api.getScaleSet(rg.toLowerCase(), 'uni')).toEqual({
      id: control.id,
      name: 'uni',
      location: 'westeurope',
      orchestrationMode: 'Uniform',
      capacity: 2,
      etag: control.etag,
      provisioningState: 'Succeeded',
      priority: 'Regular',
    });
    expect((await api.getScaleSet(rg, 'flex')).orchestrationMode).toBe('Flexible');
    expect(h.sim.counts).toMatchObject({ getScaleSet: 2, unauthorized: 0 });
  });

  it('reports a scale set without mode as such', async () => {
    h.sim.addScaleSet({ resourceGroup: rg, name: 'odd', orchestrationMode: null });
    expect((await api.getScaleSet(rg, 'odd')).orchestrationMode).toBeUndefined();
  });

  it('a missing scale set is an ArmNotFoundError naming it', async () => {
    const error = await failure(api.getScaleSet(rg, 'missing'));
    expect(error).toBeInstanceOf(ArmNotFoundError);
    expect((error as Error).message).toContain(`${rg}/missing`);
  });
});

describe('list VMs', () => {
  it('Uniform: every page, in order, with instance views', async () => {
    h.sim.addScaleSet({
      resourceGroup: rg,
      name: 'uni',
      vms: [{}, {}, { provisioningState: 'Failed', powerState: 'PowerState/stopped', zone: '3', protectFromScaleIn: true }, {}, {}, {}, { instanceView: false }],
    });
    const { vms } = await api.listVms(rg, 'uni', 'Uniform');
    expect(vms.map((vm) => vm.instanceId)).toEqual(['0', '1', '2', '3', '4', '5', '6']);
    expect(vms[2]).toEqual({
      id: `/subscriptions/${h.sim.subscriptionId}/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachineScaleSets/uni/virtualMachines/2`,
      name: 'uni_2',
      instanceId: '2',
      provisioningState: 'Failed',
      zone: '3',
      timeCreated: expect.any(Number),
      protectFromScaleIn: true,
      protectFromScaleSetActions: false,
      instanceView: {
        statuses: [
          { code: 'ProvisioningState/failed', level: 'Error', message: undefined },
          { code: 'PowerState/stopped', level: 'Info', message: undefined },
        ],
        extensions: undefined,
      },
    });
    expect(vms[6]?.instanceView).toBeUndefined();
    expect(h.sim.counts).toMatchObject({ listVms: 1, listVmsPages: 3 });
  });

  it('a 404 on a later page is a failed request, not a missing scale set; ARM keeps its say', async () => {
    h.sim.addScaleSet({ resourceGroup: rg, name: 'paged', capacity: 7 });
    h.sim.failNext(1, { status: 404, code: 'NotFound', message: 'The skip token is no longer valid.', operations: ['listVms'], laterPagesOnly: true });
    const error = await failure(api.listVms(rg, 'paged', 'Uniform'));
    expect(error).toBeInstanceOf(ArmRequestError);
    expect(error).not.toBeInstanceOf(ArmNotFoundError);
    expect((error as ArmRequestError).statusCode).toBe(404);
    expect((error as Error).message).toMatch(/page 2 .*answered 404 \(NotFound\).*skip token is no longer valid/);
    // A 404 on the first page is the scale set missing, with ARM's code and message in the error.
    const missing = await failure(api.listVms(rg, 'nowhere', 'Uniform'));
    expect(missing).toBeInstanceOf(ArmNotFoundError);
    expect((missing as ArmNotFoundError).code).toBe('ResourceNotFound');
    expect((missing as Error).message).toMatch(/not found \(ResourceNotFound: .*nowhere/);
  });

  it('Flexible: only the VMs of this scale set, named by VM name, with instance views', async () => {
    const flex = h.sim.addScaleSet({ resourceGroup: rg, name: 'flex', orchestrationMode: 'Flexible', capacity: 4 });
    h.sim.addScaleSet({ resourceGroup: rg, name: 'other', orchestrationMode: 'Flexible', capacity: 2 });
    const { vms } = await api.listVms(rg, 'flex', 'Flexible');
    expect(vms.map((vm) => vm.id)).toEqual(flex.vms().map((vm) => vm.id));
    expect(vms.map((vm) => vm.instanceId)).toEqual(flex.vms().map((vm) => vm.name));
    expect(vms.every((vm) => vm.instanceView?.statuses?.some((s) => s.code === 'PowerState/running'))).toBe(true);
    expect(h.sim.counts).toMatchObject({ listVms: 1, listVmsPages: 2 });
  });

  it('a missing Uniform scale set is an ArmNotFoundError', async () => {
    h.sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    expect(await failure(api.listVms(rg, 'missing', 'Uniform'))).toBeInstanceOf(ArmNotFoundError);
  });
});

describe('set capacity', () => {
  it('sends If-Match with the current ETag and reports done once ARM finishes', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 2 });
    const before = control.etag;
    const slowApi = await h.newApi({ clock, lroWaitMs: 5_000, lroPollIntervalMs: 10 });
    expect(await advancedWhilePending(() => slowApi.setCapacity(rg, 'uni', 4, before))).toEqual({ done: true });
    expect(control.capacity).toBe(4);
    expect(control.etag).not.toBe(before);
    expect(control.vms().map((vm) => vm.provisioningState)).toEqual(['Succeeded', 'Succeeded', 'Succeeded', 'Succeeded']);
  });

  it('a stale ETag is an ArmPreconditionFailedError and changes nothing', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 2 });
    const stale = control.etag;
    control.touch();
    const error = await failure(api.setCapacity(rg, 'uni', 3, stale));
    expect(error).toBeInstanceOf(ArmPreconditionFailedError);
    expect((error as Error).message).toContain(stale);
    expect(control.capacity).toBe(2);
    expect(control.vms()).toHaveLength(2);
  });

  it('is not waited on beyond the bound: done false, and a later pass sees the result', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 1 });
    const started = performance.now();
    const result = await api.setCapacity(rg, 'uni', 3, control.etag);
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ done: false });
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(2_000);
    expect((await api.listVms(rg, 'uni', 'Uniform')).vms.map((vm) => vm.provisioningState)).toEqual(['Succeeded', 'Creating', 'Creating']);
    clock.advance(DELAY);
    expect((await api.listVms(rg, 'uni', 'Uniform')).vms.map((vm) => vm.provisioningState)).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
  });

  it('refuses a capacity that is not a whole number ≥ 0 before calling ARM', async () => {
    await expect(api.setCapacity(rg, 'uni', -1, '"1"')).rejects.toThrow('capacity');
    expect(h.sim.counts.requests).toBe(0);
  });
});

describe('delete instances', () => {
  it('Uniform: instances go Deleting at once, then disappear; capacity drops', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 3 });
    expect(await api.deleteInstances(rg, 'uni', ['0', '2'])).toMatchObject({ done: false });
    expect(control.capacity).toBe(1);
    expect((await api.listVms(rg, 'uni', 'Uniform')).vms.map((vm) => [vm.instanceId, vm.provisioningState])).toEqual([
      ['0', 'Deleting'],
      ['1', 'Succeeded'],
      ['2', 'Deleting'],
    ]);
    clock.advance(DELAY);
    expect((await api.listVms(rg, 'uni', 'Uniform')).vms.map((vm) => vm.instanceId)).toEqual(['1']);
  });

  it('Flexible: by VM name, done once the VMs are gone', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'flex', orchestrationMode: 'Flexible', capacity: 2 });
    const [first, second] = control.vms();
    const slowApi = await h.newApi({ clock, lroWaitMs: 5_000, lroPollIntervalMs: 10 });
    expect(await advancedWhilePending(() => slowApi.deleteInstances(rg, 'flex', [first!.name]))).toEqual({ done: true });
    expect(control.vms().map((vm) => vm.name)).toEqual([second!.name]);
  });

  it('Flexible: deallocates and starts one VM by name, done once ARM finishes', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'flex', orchestrationMode: 'Flexible', capacity: 2 });
    const [first, second] = control.vms();
    const slowApi = await h.newApi({ clock, lroWaitMs: 5_000, lroPollIntervalMs: 10 });
    expect(await advancedWhilePending(() => slowApi.setPower(rg, 'flex', 'Flexible', 'deallocate', [first!.name]))).toEqual({ done: true });
    expect(control.vms().map((vm) => vm.powerState)).toEqual(['PowerState/deallocated', second!.powerState]);
    expect(await advancedWhilePending(() => slowApi.setPower(rg, 'flex', 'Flexible', 'start', [first!.name]))).toEqual({ done: true });
    expect(control.vms().map((vm) => vm.powerState)).toEqual(['PowerState/running', second!.powerState]);
  });

  it('nothing to delete calls nothing', async () => {
    expect(await api.deleteInstances(rg, 'uni', [])).toEqual({ done: true });
    expect(h.sim.counts.requests).toBe(0);
  });
});

describe('throttling and budgets', () => {
  it('a 429 with Retry-After in seconds is a RateLimitedError (source arm) with retryAfterMs, without SDK retries', async () => {
    h.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 1 });
    h.sim.throttleNext(1, { retryAfter: 120, operations: ['listVms'] });
    const error = await failure(api.listVms(rg, 'uni', 'Uniform'));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ source: 'arm' });
    expect(error).toMatchObject({ retryAfterMs: 120_000 });
    expect(h.sim.counts).toMatchObject({ listVms: 1, throttled: 1 });
    expect((await api.listVms(rg, 'uni', 'Uniform')).vms).toHaveLength(1);
  });

  it('a 429 with an HTTP-date Retry-After counts from the adapter clock', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 1 });
    h.sim.throttleNext(1, { retryAfter: new Date(clock.now() + 90_000).toUTCString() });
    expect(await failure(api.setCapacity(rg, 'uni', 2, control.etag))).toMatchObject({ name: 'RateLimitedError', source: 'arm', retryAfterMs: 90_000 });
    expect(control.capacity).toBe(1);
  });

  it('a 429 without Retry-After is throttled with no delay', async () => {
    h.sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    h.sim.throttleNext(1);
    expect(await failure(api.getScaleSet(rg, 'uni'))).toMatchObject({ name: 'RateLimitedError', source: 'arm', retryAfterMs: 0 });
  });

  it('returns the remaining budgets with the listing whose responses carried them', async () => {
    h.sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    h.sim.setRateLimitHeaders({
      'x-ms-ratelimit-remaining-subscription-reads': '15',
      'x-ms-ratelimit-remaining-resource': 'Microsoft.Compute/GetVMScaleSet3Min;2',
    });
    try {
      const first = await api.listVms(rg, 'uni', 'Uniform');
      expect(first.rateLimit).toEqual({
        subscriptionReads: 15,
        subscriptionWrites: undefined,
        resource: [{ policy: 'Microsoft.Compute/GetVMScaleSet3Min', remaining: 2 }],
        observedAt: clock.now(),
      });
      // A later call's budget is that call's: the first listing's answer does not change.
      h.sim.setRateLimitHeaders({ 'x-ms-ratelimit-remaining-subscription-reads': '14' });
      const [second, third] = await Promise.all([api.listVms(rg, 'uni', 'Uniform'), api.getScaleSet(rg, 'uni')]);
      expect(second.rateLimit).toMatchObject({ subscriptionReads: 14, resource: [] });
      expect(third.name).toBe('uni');
      expect(first.rateLimit?.subscriptionReads).toBe(15);
    } finally {
      h.sim.setRateLimitHeaders({ 'x-ms-ratelimit-remaining-subscription-reads': '11999' });
    }
  });
});

describe('connection settings', () => {
  it('the dev credential is refused for a non-loopback endpoint', async () => {
    const error = await failure(
      createComputeScaleSetApi({ subscriptionId: 's', credential: 'dev', resourceManagerEndpoint: 'https://management.azure.com' }),
    );
    expect(error).toBeInstanceOf(CredentialConfigError);
  });

  it('without the simulator CA the TLS handshake fails as an ArmRequestError', async () => {
    h.sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    const untrusting = await createComputeScaleSetApi({ subscriptionId: h.sim.subscriptionId, credential: 'dev', resourceManagerEndpoint: h.sim.url });
    const error = await failure(untrusting.getScaleSet(rg, 'uni'));
    expect(error).toBeInstanceOf(ArmRequestError);
    expect(String((error as Error).message)).toMatch(/certificate/i);
    expect(h.sim.counts.requests).toBe(0);
  });

  it('with a caFile, new TLS sockets of every client in the process share one secure context', async () => {
    h.sim.addScaleSet({ resourceGroup: rg, name: 'uni' });
    const other = await h.newApi();
    const contexts = vi.spyOn(tls, 'createSecureContext');
    const connects = vi.spyOn(tls, 'connect');
    try {
      // Concurrent calls from two clients cannot all ride one idle keep-alive socket.
      await Promise.all([api, other, api, other].map((client) => client.getScaleSet(rg, 'uni')));
      expect(connects.mock.calls.length).toBeGreaterThanOrEqual(2);
      const used = new Set(connects.mock.calls.map((call) => (call[0] as tls.ConnectionOptions).secureContext));
      expect(used.size).toBe(1);
      expect([...used][0]).toBeDefined();
      expect(contexts).not.toHaveBeenCalled();
    } finally {
      contexts.mockRestore();
      connects.mockRestore();
    }
  });

  it('an unreadable caFile is an error naming the setting', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'drover-ca-'));
    try {
      await expect(
        createComputeScaleSetApi({ subscriptionId: 's', credential: 'dev', resourceManagerEndpoint: h.sim.url, caFile: join(dir, 'missing.pem') }),
      ).rejects.toThrow('azure.caFile');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('what ARM sends besides its specification, tolerated', () => {
  it('a scale set PATCH answered 202 with Azure-AsyncOperation and Location still completes the raise', async () => {
    const other = await startSimHarness(
      { clock, provisionDelayMs: DELAY, deleteDelayMs: DELAY, scaleSetPatchStatus: 202 },
      { clock, lroWaitMs: 5_000, lroPollIntervalMs: 10 },
    );
    try {
      const control = other.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 2 });
      expect(await advancedWhilePending(() => other.api.setCapacity(rg, 'uni', 4, control.etag))).toEqual({ done: true });
      expect(control.capacity).toBe(4);
      expect(control.vms().map((vm) => vm.provisioningState)).toEqual(['Succeeded', 'Succeeded', 'Succeeded', 'Succeeded']);
      expect(other.sim.counts.pollOperation).toBeGreaterThan(0);
    } finally {
      await other.stop();
    }
  });

  it('fields no specification names, in the scale set and each listed VM, are ignored', async () => {
    const other = await startSimHarness({ clock, pageSize: 3, unknownFields: true }, { clock, lroWaitMs: 150, lroPollIntervalMs: 10 });
    try {
      const control = other.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 4 });
      expect(await other.api.getScaleSet(rg, 'uni')).toMatchObject({ name: 'uni', orchestrationMode: 'Uniform', capacity: 4, etag: control.etag });
      const { vms } = await other.api.listVms(rg, 'uni', 'Uniform');
      expect(vms.map((vm) => vm.instanceId)).toEqual(['0', '1', '2', '3']);
      expect(vms.map((vm) => vm.provisioningState)).toEqual(['Succeeded', 'Succeeded', 'Succeeded', 'Succeeded']);
    } finally {
      await other.stop();
    }
  });
});
