// The azureMonitor source against the metrics simulator (sim/arm-sources): the real answer's
// shape, 1-minute buckets, and the bucket rules end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAzureMonitor } from '../../src/load/azure-monitor-source.js';
import { startArmSourcesSim, type ArmSourcesSim } from '../../sim/arm-sources/server.js';

const SUB = '00000000-0000-0000-0000-000000000001';
const VMSS = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss`;
const MIN = 60_000;
const NOW = Date.UTC(2026, 11, 7, 12, 5, 30);
const minute = (minutesAgo: number) => Date.UTC(2026, 11, 7, 12, 5) - minutesAgo * MIN;

let sim: ArmSourcesSim;
const config = { metric: 'Percentage CPU', aggregation: 'Average' as const, window: 5 * MIN, delay: 3 * MIN };
const read = () =>
  readAzureMonitor(
    config,
    {
      credential: () => ({ getToken: async () => ({ token: 'sim-token', expiresOnTimestamp: NOW + 3_600_000 }) }),
      azure: { subscriptionId: SUB, resourceManagerEndpoint: sim.url },
      target: { name: 'workers', ref: { kind: 'pool', scaleSet: { subscriptionId: SUB, resourceGroup: 'rg', name: 'vmss' } } },
      now: () => NOW,
    },
    AbortSignal.timeout(5_000),
  );
/** Values for the minutes 4 … 0 ago (12:01 … 12:05); undefined: no data yet. */
const setBuckets = (...values: (number | undefined)[]) =>
  sim.setMetric(VMSS, 'Percentage CPU', new Map(values.flatMap((v, i) => (v === undefined ? [] : [[minute(values.length - 1 - i), v] as [number, number]]))));

beforeAll(async () => {
  sim = await startArmSourcesSim();
});
afterAll(() => sim.close());

describe("azureMonitor against the metrics simulator (a Pool target's scale set by default)", () => {
  it('reads Percentage CPU averaging 80 over the window, as read now (a sample in the stable window)', async () => {
    setBuckets(80, 80, 80, 80, 80);
    // The bucket in progress counts (present, non-zero): its data is as of now.
    expect(await read()).toEqual({ ok: true, value: 80, measuredAt: NOW });
    const asked = sim.metricsRequests.at(-1)!;
    expect([asked.get('api-version'), asked.get('interval'), asked.get('aggregation'), asked.get('metricnames')]).toEqual(['2024-02-01', 'PT1M', 'Average', 'Percentage CPU']);
  });

  it('a window whose last two buckets are empty reads the complete ones', async () => {
    setBuckets(70, 80, 90, undefined, undefined);
    // Measured up to the end of the newest counted bucket, 12:03 + 1 min: status shows its age.
    expect(await read()).toEqual({ ok: true, value: 80, measuredAt: minute(2) + MIN });
  });

  it('complete buckets at 0 read 0', async () => {
    setBuckets(0, 0, 0, 0, undefined);
    expect(await read()).toMatchObject({ ok: true, value: 0 });
  });

  it('a window of only young empty buckets is no reading, never 0', async () => {
    setBuckets(undefined, undefined, undefined, 0, undefined);
    expect(await read()).toMatchObject({ ok: false, error: expect.stringMatching(/Percentage CPU of .*vmss: no bucket to count/) });
  });

  it("a metric the resource does not have is a failure naming ARM's answer", async () => {
    const reading = await readAzureMonitor({ ...config, metric: 'Nope', resourceId: VMSS }, { credential: () => ({ getToken: async () => ({ token: 't', expiresOnTimestamp: NOW + 1 }) }), azure: { subscriptionId: SUB, resourceManagerEndpoint: sim.url }, target: { name: 'w', ref: { kind: 'kubernetes', ref: { kind: 'Deployment', namespace: 'default', name: 'w' } } }, now: () => NOW }, AbortSignal.timeout(5_000));
    expect(reading).toMatchObject({ ok: false, error: expect.stringMatching(/answered 400 BadRequest/) });
  });
});
