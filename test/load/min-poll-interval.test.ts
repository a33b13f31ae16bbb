// A kind's minimum period (Azure Monitor: once a minute): when a source is read again, what
// stands for it meanwhile, and the target's sampling period it raises.
import { describe, expect, it } from 'vitest';
import { collectLoad, readDue, type CollectPorts } from '../../src/load/collect.js';
import type { LoadSpecConfig, NamedSourceConfig } from '../../src/config/schema.js';
import { pollIntervalOf } from '../../src/load/sources.js';
import type { SourceReading } from '../../src/load/source-kind.js';
import type { Sample } from '../../src/load/samples.js';

const NOW = 10_000_000;
const MINUTE = 60_000;

describe('readDue', () => {
  it.each<{ name: string; lastReadAt: number | undefined; min: number | undefined; due: boolean }>([
    { name: 'a kind without a minimum is read every time', lastReadAt: NOW - 1, min: undefined, due: true },
    { name: 'a source never read is read', lastReadAt: undefined, min: MINUTE, due: true },
    { name: 'a source read 59 s ago waits for its minute', lastReadAt: NOW - 59_000, min: MINUTE, due: false },
    { name: 'a source read a minute ago is read again', lastReadAt: NOW - MINUTE, min: MINUTE, due: true },
    { name: 'a source read long ago is read', lastReadAt: NOW - 10 * MINUTE, min: MINUTE, due: true },
  ])('$name', ({ lastReadAt, min, due }) => {
    expect(readDue(lastReadAt, min, NOW)).toBe(due);
  });
});

const monitor = (extra: Record<string, unknown> = {}) =>
  ({ source: 'azureMonitor', name: 'cpu', metric: 'Percentage CPU', aggregation: 'Average', window: 5 * MINUTE, delay: 3 * MINUTE, targetPerReplica: 60, metricType: 'total', activationThreshold: 0, ...extra }) as unknown as NamedSourceConfig;
const push = { source: 'push', name: 'jobs', targetPerReplica: 1, metricType: 'total', activationThreshold: 0 } as unknown as NamedSourceConfig;
const http = (pollInterval?: number) => ({ source: 'http', name: 'web', url: 'http://web/load', timeout: 1000, targetPerReplica: 1, metricType: 'total', activationThreshold: 0, ...(pollInterval ? { pollInterval } : {}) }) as unknown as NamedSourceConfig;

function ports(stored: Sample[], answer: SourceReading) {
  const reads: string[] = [];
  const written: Sample[][] = [];
  const p: CollectPorts = {
    readSeries: async () => ({ cpu: stored }),
    writeSeries: async (series) => void written.push([...series.cpu!]),
    reader: (source) => ({ read: async () => (reads.push(source.name), answer) }),
  };
  return { p, reads, written };
}

describe('collectLoad with a minimum period', () => {
  it.each<{ name: string; stored: Sample[]; answer: SourceReading; want: { reads: number; read: string; value?: number; holdLatest: boolean; samples: number[]; note: RegExp } }>([
    { name: 'read 20 s ago: not read, its last value is its reading and holds', stored: [{ at: NOW - 20_000, value: 80 }], answer: { ok: true, value: 5 }, want: { reads: 0, read: 'ok', value: 80, holdLatest: true, samples: [80], note: /azureMonitor 80 \(read 20 s ago/ } },
    { name: 'read a minute ago: read again and added', stored: [{ at: NOW - MINUTE, value: 80 }], answer: { ok: true, value: 50 }, want: { reads: 1, read: 'ok', value: 50, holdLatest: false, samples: [80, 50], note: /azureMonitor 50$/ } },
    { name: 'never read: read', stored: [], answer: { ok: true, value: 50 }, want: { reads: 1, read: 'ok', value: 50, holdLatest: false, samples: [50], note: /azureMonitor 50$/ } },
    { name: 'a failed read is tried again on the next pass (no sample was added)', stored: [], answer: { ok: false, error: 'answered 503' }, want: { reads: 1, read: 'failed', holdLatest: false, samples: [], note: /answered 503/ } },
  ])('$name', async ({ stored, answer, want }) => {
    const { p, reads } = ports(stored, answer);
    const load: LoadSpecConfig = { sources: [monitor()], combine: 'max' } as LoadSpecConfig;
    const got = await collectLoad(load, undefined, p, { now: NOW, keepMs: 5 * MINUTE, persist: true, signal: new AbortController().signal });
    const cpu = got.sources[0]!;
    expect(reads).toHaveLength(want.reads);
    expect(cpu.read).toBe(want.read);
    expect(cpu.value?.value).toBe(want.value);
    expect(cpu.holdLatest).toBe(want.holdLatest);
    expect(cpu.samples.toArray().map((s) => s.value)).toEqual(want.samples);
    expect(cpu.note).toMatch(want.note);
  });

  it('a held source still counts in a window that holds no sample of it', async () => {
    const { p } = ports([{ at: NOW - 40_000, value: 80 }], { ok: true, value: 5 });
    const got = await collectLoad({ sources: [monitor()], combine: 'max' } as LoadSpecConfig, undefined, p, { now: NOW, keepMs: 30_000, persist: false, signal: new AbortController().signal });
    const cpu = got.sources[0]!;
    expect(cpu.samples.average(NOW, 30_000, cpu.holdLatest)).toBe(80);
  });
});

describe('pollIntervalOf', () => {
  it.each<{ name: string; load: LoadSpecConfig; want: number | undefined }>([
    { name: 'an azureMonitor source alone is sampled once a minute, not at the 15 s default', load: { sources: [monitor()], combine: 'max' } as LoadSpecConfig, want: MINUTE },
    { name: 'a shorter pollInterval on it is raised to its minute', load: { sources: [monitor({ pollInterval: 10_000 })], combine: 'max' } as LoadSpecConfig, want: MINUTE },
    { name: 'a load-wide pollInterval is raised for it', load: { sources: [monitor()], combine: 'max', pollInterval: 5_000 } as LoadSpecConfig, want: MINUTE },
    { name: 'beside an http source of 10 s, the target samples every 10 s', load: { sources: [monitor(), http(10_000)], combine: 'max' } as LoadSpecConfig, want: 10_000 },
    { name: 'a longer pollInterval on it stays', load: { sources: [monitor({ pollInterval: 5 * MINUTE })], combine: 'max' } as LoadSpecConfig, want: 5 * MINUTE },
    { name: 'an http source alone keeps the default', load: { sources: [http()], combine: 'max' } as LoadSpecConfig, want: 15_000 },
    { name: 'a push source alone is not polled', load: { sources: [push], combine: 'max' } as LoadSpecConfig, want: undefined },
  ])('$name', ({ load, want }) => {
    expect(pollIntervalOf(load, 15_000)).toBe(want);
  });
});
