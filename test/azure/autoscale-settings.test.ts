/**
 * The autoscale settings read (src/azure/autoscale-settings.ts) through the compute adapter's own
 * pipeline, against the ARM simulator over TLS: every page of one resource group, the fields
 * the hold needs, ARM's errors in the adapter's closed set, and the bounds of a read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArmNotFoundError, ArmRequestError, RateLimitedError } from '../../src/azure/errors.js';
import { MAX_AUTOSCALE_SETTINGS } from '../../src/azure/autoscale-settings.js';
import { startSimHarness, type SimHarness } from '../sim/arm/harness.js';

let h: SimHarness;
let seq = 0;
/** A resource group of its own for each test. */
const freshGroup = () => `RG-Autoscale-${++seq}`;

beforeAll(async () => {
  h = await startSimHarness({ pageSize: 2 });
});
afterAll(() => h.stop());

describe('list autoscale settings', () => {
  it('reads every page of the resource group, and only that group: names, enabled flags, targets', async () => {
    const rg = freshGroup();
    const lists = h.sim.counts.listAutoscaleSettings;
    const target = (n: number) => `/subscriptions/${h.sim.subscriptionId}/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-${n}`;
    for (let n = 0; n < 5; n++) h.sim.addAutoscaleSetting({ resourceGroup: rg, name: `rules-${n}`, targetResourceUri: target(n), enabled: n % 2 === 0 });
    h.sim.addAutoscaleSetting({ resourceGroup: `${rg}-other`, name: 'elsewhere', targetResourceUri: target(9) });
    const settings = await h.api.listAutoscaleSettings(rg);
    expect(settings.map((s) => [s.name, s.enabled, s.targetResourceUri])).toEqual([0, 1, 2, 3, 4].map((n) => [`rules-${n}`, n % 2 === 0, target(n)]));
    expect(settings[0]!.id).toContain('/providers/microsoft.insights/autoscalesettings/rules-0');
    // Two a page: three requests.
    expect(h.sim.counts.listAutoscaleSettings - lists).toBe(3);
  });

  it('a resource group without settings lists none', async () => {
    expect(await h.api.listAutoscaleSettings(freshGroup())).toEqual([]);
  });

  it('a 429 is a RateLimitedError with its Retry-After, a 404 an ArmNotFoundError, a 403 an ArmRequestError with ARM\'s code and message', async () => {
    const rg = freshGroup();
    h.sim.throttleNext(1, { retryAfter: 30, operations: ['listAutoscaleSettings'] });
    await expect(h.api.listAutoscaleSettings(rg)).rejects.toSatisfy((e) => e instanceof RateLimitedError && e.retryAfterMs === 30_000);
    h.sim.failNext(1, { status: 404, code: 'ResourceGroupNotFound', operations: ['listAutoscaleSettings'] });
    await expect(h.api.listAutoscaleSettings(rg)).rejects.toBeInstanceOf(ArmNotFoundError);
    h.sim.failNext(1, { status: 403, code: 'AuthorizationFailed', message: 'does not have authorization to perform action Microsoft.Insights/autoscalesettings/read', operations: ['listAutoscaleSettings'] });
    const refused = h.api.listAutoscaleSettings(rg);
    await expect(refused).rejects.toBeInstanceOf(ArmRequestError);
    await expect(refused).rejects.toMatchObject({ statusCode: 403, code: 'AuthorizationFailed', message: expect.stringContaining('Microsoft.Insights/autoscalesettings/read') });
  });

  it(`refuses more than ${MAX_AUTOSCALE_SETTINGS} settings, and stops paging`, async () => {
    const big = await startSimHarness({ pageSize: 1_000 });
    try {
      const rg = freshGroup();
      for (let n = 0; n <= MAX_AUTOSCALE_SETTINGS; n++) big.sim.addAutoscaleSetting({ resourceGroup: rg, name: `r${n}`, targetResourceUri: `t${n}` });
      await expect(big.api.listAutoscaleSettings(rg)).rejects.toSatisfy((e) => e instanceof ArmRequestError && e.message.includes(`more than ${MAX_AUTOSCALE_SETTINGS} autoscale settings`));
      expect(big.sim.counts.listAutoscaleSettings).toBe(3);
    } finally {
      await big.stop();
    }
  });

  it('an aborted read rejects with the abort, without waiting for an answer', async () => {
    const aborted = AbortSignal.abort(new Error('the pass ran out of time'));
    await expect(h.api.listAutoscaleSettings(freshGroup(), { abortSignal: aborted })).rejects.toBeInstanceOf(Error);
  });
});
