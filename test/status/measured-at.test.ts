// When a source's data was measured (azureMonitor: its newest counted bucket's end), kept in the
// target's record by the plan and shown by status as `sources[].measuredAt`.
import { describe, expect, it } from 'vitest';
import { SampleWindow } from '../../src/load/sample-window.js';
import type { TargetRecord } from '../../src/scaler/read/target-record.js';
import { sourcesView, type SourceObservation } from '../../src/scaler/recommend/sources-view.js';
import { targetStatusOf } from '../../src/status/target-status.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { parseConfig } from '../../src/config/load.js';
import { settingsOf } from '../scaler/plan-driver.js';

const NOW = Date.UTC(2026, 11, 7, 12, 5, 30);
const MIN = 60_000;
const targetKeys = {
  load: { sources: [{ name: 'cpu', source: 'azureMonitor', metric: 'Percentage CPU', resourceId: '/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachineScaleSets/v', targetPerReplica: 60 }, { name: 'web', source: 'http', url: 'http://web.example/load', targetPerReplica: 10 }] },
  minScale: 1,
};
const settings = settingsOf(targetKeys);
const observed = (name: string, o: Partial<SourceObservation> = {}): SourceObservation => ({ name, window: SampleWindow.from([{ at: NOW, value: 50 }]), holdLatest: false, read: 'ok', ...o });
const changes = (sources: SourceObservation[], record?: TargetRecord) =>
  sourcesView({ record, observation: { scale: 2, ready: 2 }, samples: [], holdLatest: false, sources, settings, now: NOW }).healthChanges;

describe('the record keeps when each source\'s data was measured', () => {
  it.each<{ name: string; sources: SourceObservation[]; stored?: Record<string, number>; want: Record<string, number> | undefined | 'unchanged' }>([
    { name: 'a read that says when its data was measured is kept by name', sources: [observed('cpu', { measuredAt: NOW - 3 * MIN }), observed('web')], want: { cpu: NOW - 3 * MIN } },
    { name: 'a source not read this time (its minimum period) keeps the stored time: nothing written', sources: [observed('cpu'), observed('web')], stored: { cpu: NOW - 4 * MIN }, want: 'unchanged' },
    { name: 'a newer measurement replaces the stored one', sources: [observed('cpu', { measuredAt: NOW - 2 * MIN }), observed('web')], stored: { cpu: NOW - 4 * MIN }, want: { cpu: NOW - 2 * MIN } },
    { name: 'a source no longer configured loses its time', sources: [observed('web')], stored: { old: NOW - 4 * MIN }, want: undefined },
    { name: 'sources that never say keep nothing', sources: [observed('cpu'), observed('web')], want: 'unchanged' },
  ])('$name', ({ sources, stored, want }) => {
    const record = stored ? ({ sourceMeasuredAt: JSON.stringify(stored) } as TargetRecord) : undefined;
    const got = changes(sources, record);
    if (want === 'unchanged') expect(Object.hasOwn(got, 'sourceMeasuredAt')).toBe(false);
    else expect(got.sourceMeasuredAt === undefined ? undefined : JSON.parse(got.sourceMeasuredAt)).toEqual(want);
  });
});

describe('status shows it', () => {
  const rt = { configuration: { seq: 1, hash: 'h', newest: { newerLive: async () => undefined } } } as unknown as Pick<Runtime, 'configuration'>;
  const target = parseConfig({ kubernetes: { kubeconfig: '/nonexistent' }, targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, ...targetKeys }] }).targets[0]!;

  it('as sources[].measuredAt (ISO) for the source that reported it, and not for the others', async () => {
    const record = { sourceMeasuredAt: JSON.stringify({ cpu: NOW - 3 * MIN }) } as TargetRecord;
    const status = await targetStatusOf(rt, target, record, { cpu: [{ at: NOW - 20_000, value: 80 }], web: [{ at: NOW, value: 5 }] });
    expect(status.sources.map((s) => [s.name, s.measuredAt])).toEqual([['cpu', new Date(NOW - 3 * MIN).toISOString()], ['web', undefined]]);
  });

  it('a damaged field reads as none', async () => {
    const status = await targetStatusOf(rt, target, { sourceMeasuredAt: '{not json' } as TargetRecord, {});
    expect(status.sources.every((s) => s.measuredAt === undefined)).toBe(true);
  });
});
