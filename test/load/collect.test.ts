// One reconcile's look at the load: which reading counts, what is stored, and when nothing is.
import { describe, expect, it } from 'vitest';
import { collectLoad, type CollectPorts } from '../../src/load/collect.js';
import type { LoadSpecConfig } from '../../src/config/schema.js';
import { kindOf } from '../../src/load/registry.js';
import type { SourcePorts } from '../../src/load/source-kind.js';
import type { Sample } from '../../src/load/samples.js';

const NOW = 1_000_000;

function ports(stored: Sample[]) {
  const written: { samples: Sample[]; pushTag?: string }[] = [];
  const p: CollectPorts = {
    readSeries: async () => ({ load: stored }),
    writeSeries: async (series, pushTag) => {
      written.push({ samples: [...series.load!], ...(pushTag === undefined ? {} : { pushTag }) });
    },
    reader: (source) => kindOf(source.source).open!(source, {} as SourcePorts),
  };
  return { p, written };
}

const one = (source: Record<string, unknown>): LoadSpecConfig => ({ sources: [{ name: 'load', activationThreshold: 0, metricType: 'total', targetPerReplica: 1, source: 'push', ...source }], combine: 'max' });
const push = one({ source: 'push', targetPerReplica: 10 });
const unreachable = one({ source: 'http', url: 'http://127.0.0.1:1/load', timeout: 300, targetPerReplica: 5 });

describe('collectLoad', () => {
  it.each<{ name: string; source: LoadSpecConfig | undefined; pushed?: number; stored: Sample[]; persist?: boolean; want: { values: number[]; writes: number; tagged?: boolean; tpr: number; note: RegExp } }>([
    { name: 'a push is a new sample, written with the push it served', source: push, pushed: 25, stored: [], want: { values: [25], writes: 1, tagged: true, tpr: 10, note: /pushed 25/ } },
    { name: 'a push equal to the gauge is no new sample, but the row records it served', source: push, pushed: 25, stored: [{ at: NOW - 10, value: 25 }], want: { values: [25], writes: 1, tagged: true, tpr: 10, note: /pushed 25/ } },
    { name: 'no push: the stored gauge only', source: push, stored: [{ at: NOW - 10, value: 3 }], want: { values: [3], writes: 0, tpr: 10, note: /no new push/ } },
    { name: 'no load source: a push source of replicas', source: undefined, pushed: 2, stored: [], want: { values: [2], writes: 1, tagged: true, tpr: 1, note: /pushed 2/ } },
    { name: 'an http target reads its source, never a push', source: unreachable, pushed: 7, stored: [], want: { values: [], writes: 0, tpr: 5, note: /http: .*127\.0\.0\.1:1/ } },
    { name: 'an unreachable http source adds nothing and says why', source: unreachable, stored: [], want: { values: [], writes: 0, tpr: 5, note: /http: .*127\.0\.0\.1:1/ } },
    { name: 'samples older than the window are dropped (the newest kept)', source: push, stored: [{ at: NOW - 9_000, value: 1 }, { at: NOW - 8_000, value: 2 }], want: { values: [2], writes: 1, tpr: 10, note: /no new push/ } },
    { name: 'a dry run writes nothing', source: push, pushed: 25, stored: [], persist: false, want: { values: [25], writes: 0, tpr: 10, note: /pushed 25/ } },
  ])('$name', async ({ source, pushed, stored, persist, want }) => {
    const { p, written } = ports(stored);
    const got = await collectLoad(source, pushed === undefined ? undefined : { value: pushed, tag: 'W/"7"' }, p, { now: NOW, keepMs: 5_000, persist: persist ?? true, signal: new AbortController().signal });
    expect(got.sources[0]!.samples.toArray().map((s) => s.value)).toEqual(want.values);
    expect(written).toHaveLength(want.writes);
    expect(written.map((w) => w.pushTag)).toEqual(written.map(() => (want.tagged ? 'W/"7"' : undefined)));
    expect((source ?? { sources: [{ targetPerReplica: 1 }] }).sources[0]!.targetPerReplica).toBe(want.tpr);
    expect(got.note).toMatch(want.note);
  });
});
