/**
 * The autoscale settings read (src/azure/autoscale-settings.ts) through the compute adapter's own
 * pipeline, against the ARM simulator over TLS: every page of one resource group, the fields
 * the hold needs, ARM's errors in the adapter's closed set, and the bounds of a read.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ArmNotFoundError, ArmRequestError, RateLimitedError } from '../../src/azure/errors.js';
import { MAX_AUTOSCALE_SETTINGS } from '../../src/azure/autoscale-settings.js';
import { startSimHarness, type SimHarness } from '../sim/arm/harness.js';

let h: SimHarness;
let rg: string;
let seq = 0;

beforeAll(async () => {
  h = await startSimHarness({ pageSize: 2 });
});
afterAll(async () => {
  await h.stop();
});
beforeEach(() => {
  rg = `RG-Autoscale-${++seq}`;
  h.sim.resetCounts();
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('list autoscale settings', () => {
  it('reads every page of the resource group, and only that group: names, enabled flags, targets', async () => {
    const target = (n: number) => `/subscriptions/${h.sim.subscriptionId}/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-${n}`;
    for (let n = 0; n < 5; n++) h.sim.addAutoscaleSetting({ resourceGroup: rg, name: `rules-${n}`, targetResourceUri: target(n), enabled: n % 2 === 0 });
    h.sim.addAutoscaleSetting({ resourceGroup: `${rg}-other`, name: 'elsewhere', targetResourceUri: target(9) });
    const settings = await h.api.listAutoscaleSettings(rg);
    expect(settings.map((s) => [s.name, s.enabled, s.targetResourceUri])).toEqual([0, 1, 2, 3, 4].map((n) => [`rules-${n}`, n % 2 === 0, target(n)]));
    expect(settings[0]!.id).toContain('/providers/microsoft.insights/autoscalesettings/rules-0');
    // Two a page: three requests.
    expect(h.sim.counts.listAutoscaleSettings).toBe(3);
  });

  it('a resource group without settings lists none', async () => {
    expect(await h.api.listAutoscaleSettings(rg)).toEqual([]);
  });

  it('a 429 is a RateLimitedError with its Retry-After, a 404 an ArmNotFoundError, a 403 an ArmRequestError with ARM\'s code and message', async () => {
    h.sim.throttleNext(1, { retryAfter: 30, operations: ['listAutoscaleSettings'] });
    const throttled = await failure(h.api.listAutoscaleSettings(rg));
    expect(throttled).toBeInstanceOf(RateLimitedError);
    expect((throttled as RateLimitedError).retryAfterMs).toBe(30_000);
    h.sim.failNext(1, { status: 404, code: 'ResourceGroupNotFound', operations: ['listAutoscaleSettings'] });
    expect(await failure(h.api.listAutoscaleSettings(rg))).toBeInstanceOf(ArmNotFoundError);
    h.sim.failNext(1, { status: 403, code: 'AuthorizationFailed', message: 'does not have authorization to perform action Microsoft.Insights/autoscalesettings/read', operations: ['listAutoscaleSettings'] });
    const refused = await failure(h.api.listAutoscaleSettings(rg));
    expect(refused).toBeInstanceOf(ArmRequestError);
    expect(refused).toMatchObject({ statusCode: 403, code: 'AuthorizationFailed' });
    expect((refused as Error).message).toContain('Microsoft.Insights/autoscalesettings/read');
  });

  it(`refuses more than ${MAX_AUTOSCALE_SETTINGS} settings, and stops paging`, async () => {
    const api = await startSimHarness({ pageSize: 1_000 });
    try {
      for (let n = 0; n <= MAX_AUTOSCALE_SETTINGS; n++) api.sim.addAutoscaleSetting({ resourceGroup: rg, name: `r${n}`, targetResourceUri: `t${n}` });
      const refused = await failure(api.api.listAutoscaleSettings(rg));
      expect(refused).toBeInstanceOf(ArmRequestError);
      expect((refused as Error).message).toContain(`more than ${MAX_AUTOSCALE_SETTINGS} autoscale settings`);
      expect(api.sim.counts.listAutoscaleSettings).toBe(3);
    } finally {
      await api.stop();
    }
  });

  it('an aborted read rejects without waiting for the answer', async () => {
    const aborted = AbortSignal.abort(new Error('the pass ran out of time'));
    expect(await failure(h.api.listAutoscaleSettings(rg, { abortSignal: aborted }))).toBeInstanceOf(Error);
  });
});
