// The azureMonitor source's bucket rules: complete buckets (ended more than `delay` ago) count
// whatever their value; newer ones only when present and non-zero; nothing to count is no reading.
import { describe, expect, it } from 'vitest';
import { metricsUrl, resourceOf, seriesOf, windowReading, type Bucket } from '../../src/load/azure-monitor-source.js';
import { parseConfigText } from '../../src/config/load.js';
import { planDriver, settingsOf, T0 } from '../scaler/plan-driver.js';

const MIN = 60_000;
/** 12:05:30: the current minute's bucket started at 12:05. */
const NOW = Date.UTC(2026, 11, 7, 12, 5, 30);
const at = (minutesAgo: number) => Date.UTC(2026, 11, 7, 12, 5) - minutesAgo * MIN;

/** The five buckets of a 5-minute window, oldest first (12:01 … 12:05); undefined: absent. */
const window5 = (...values: (number | undefined)[]): Bucket[] => values.map((value, i) => ({ start: at(values.length - 1 - i), value }));

describe('windowReading (bucket rules)', () => {
  it.each<{ name: string; buckets: Bucket[]; delay?: number; aggregation?: 'Average' | 'Maximum' | 'Total'; want: number | RegExp; age?: number }>([
    { name: 'Percentage CPU at 80 in every bucket reads 80', buckets: window5(80, 80, 80, 80, 80), want: 80 },
    { name: 'a window whose last two buckets are empty reads the complete ones', buckets: window5(70, 80, 90, undefined, undefined), want: 80 },
    { name: 'complete buckets at 0 read 0 (an idle resource)', buckets: window5(0, 0, 0, undefined, undefined), want: 0 },
    { name: 'a young bucket at 0 does not count (it may still fill in)', buckets: window5(60, 60, 60, 0, 0), want: 60 },
    { name: 'a young present non-zero bucket counts', buckets: window5(60, 60, 60, 90, undefined), want: 67.5 },
    { name: 'a window of only young empty buckets is no reading, never 0', buckets: window5(undefined, undefined, undefined, 0, undefined), want: /no bucket to count/ },
    { name: 'no buckets at all is no reading', buckets: [], want: /no bucket to count/ },
    { name: 'with a delay of 0 an ended bucket at 0 counts, the one still in progress does not', buckets: window5(60, 60, 60, 0, 0), delay: 0, want: 45 },
    { name: 'Maximum takes the largest counted bucket', buckets: window5(10, 95, 20, undefined, undefined), aggregation: 'Maximum', want: 95 },
    { name: 'Total adds the counted buckets', buckets: window5(10, 20, 30, 40, undefined), aggregation: 'Total', want: 100 },
    { name: 'a bucket before the window is not read', buckets: [{ start: at(10), value: 99 }, ...window5(50, 50, 50, undefined, undefined)], want: 50 },
  ])('$name', ({ buckets, delay = 3 * MIN, aggregation = 'Average', want }) => {
    const reading = windowReading(buckets, { now: NOW, delayMs: delay, windowMs: 5 * MIN, aggregation });
    if (typeof want === 'number') expect(reading).toMatchObject({ ok: true, value: want });
    else expect(reading).toMatchObject({ ok: false, error: expect.stringMatching(want) });
  });

  it('the reading is as old as the end of its newest counted bucket, for status', () => {
    const reading = windowReading(window5(70, 80, 90, undefined, undefined), { now: NOW, delayMs: 3 * MIN, windowMs: 5 * MIN, aggregation: 'Average' });
    expect(reading).toEqual({ ok: true, value: 80, measuredAt: at(2) + MIN });
  });
});

describe('the metrics answer', () => {
  const answer = (timeseries: unknown[], extra: object = {}) => ({ cost: 5, interval: 'PT1M', value: [{ id: 'x', type: 'Microsoft.Insights/metrics', name: { value: 'Percentage CPU' }, unit: 'Percent', timeseries, errorCode: 'Success', ...extra }] });

  it('reads the aggregation named in lower case, a missing value as an absent bucket', () => {
    const got = seriesOf(answer([{ metadatavalues: [], data: [{ timeStamp: '2026-12-07T12:01:00Z', average: 42 }, { timeStamp: '2026-12-07T12:02:00Z' }] }]), 'Average');
    expect(got).toEqual({ ok: true, buckets: [{ start: Date.UTC(2026, 11, 7, 12, 1), value: 42 }, { start: Date.UTC(2026, 11, 7, 12, 2), value: undefined }] });
  });

  it.each([
    { name: 'a metric error names its code', body: answer([], { errorCode: 'InvalidSamplingType', errorMessage: 'Sampling type is not found' }), want: /InvalidSamplingType: Sampling type/ },
    { name: 'two time series ask for a narrower filter', body: answer([{ data: [] }, { data: [] }]), want: /2 time series/ },
    { name: 'an answer without a metric', body: { value: [] }, want: /one metric/ },
  ])('$name', ({ body, want }) => {
    expect(seriesOf(body, 'Average')).toMatchObject({ ok: false, error: expect.stringMatching(want) });
  });

  it('asks for 1-minute buckets over the window, api-version 2024-02-01, with the namespace and filter', () => {
    const url = metricsUrl('https://management.azure.com', '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss', { metric: 'Percentage CPU', aggregation: 'Average', window: 5 * MIN, delay: 3 * MIN, metricNamespace: 'microsoft.compute/virtualmachinescalesets', filter: "VMName eq '*'" }, NOW);
    expect(url.pathname).toBe('/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/providers/Microsoft.Insights/metrics');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      'api-version': '2024-02-01',
      metricnames: 'Percentage CPU',
      aggregation: 'Average',
      interval: 'PT1M',
      timespan: '2026-12-07T12:01:00.000Z/2026-12-07T12:06:00.000Z',
      metricnamespace: 'microsoft.compute/virtualmachinescalesets',
      $filter: "VMName eq '*'",
    });
  });

  it("defaults resourceId to a Pool target's scale set", () => {
    expect(resourceOf({}, { kind: 'pool', scaleSet: { subscriptionId: 'sub', resourceGroup: 'rg', name: 'vmss' } })).toBe('/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss');
  });
});

describe('azureMonitor through the plan', () => {
  it('Percentage CPU average 80, perReplica, 60 per replica, 3 ready VMs → 4', async () => {
    const reading = windowReading(window5(80, 80, 80, undefined, undefined), { now: NOW, delayMs: 3 * MIN, windowMs: 5 * MIN, aggregation: 'Average' });
    expect(reading.ok).toBe(true);
    const source = { name: 'cpu', source: 'azureMonitor', metric: 'Percentage CPU', resourceId: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss', metricType: 'perReplica', targetPerReplica: 60 };
    const settings = settingsOf({ load: { sources: [source] }, minScale: 0, maxScale: 50, maxScaleDownRate: 1000, activator: { probeUrl: 'http://web.example/healthz' } });
    const step = await planDriver(settings, { current: 3 }).step({ at: T0, load: undefined, ready: 3, sources: { cpu: reading.ok ? reading.value : Number.NaN } });
    expect(step.outcome.desired.kind === 'known' ? step.outcome.desired.desired : undefined).toBe(4);
  });

  it('takes the defaults of its keys', () => {
    const yaml = 'azure: { subscriptionId: 00000000-0000-0000-0000-000000000001 }\npools:\n  - { name: workers, scaleSet: { resourceGroup: rg, name: vmss } }\ntargets:\n  - name: workers\n    scaleTargetRef: { kind: Pool, name: workers }\n    minScale: 1\n    load: { source: azureMonitor, metric: Percentage CPU, metricType: perReplica, targetPerReplica: 60 }\n';
    expect(parseConfigText(yaml).targets[0]!.load!.sources[0]).toMatchObject({ metric: 'Percentage CPU', aggregation: 'Average', window: 5 * MIN, delay: 3 * MIN, metricType: 'perReplica' });
  });
});
