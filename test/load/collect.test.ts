// One reconcile's look at the load: which reading counts, what is stored, and when nothing is.
import { describe, expect, it } from 'vitest';
import { SampleWindow } from '../../src/load/sample-window.js';
import { collectLoad, type LoadPorts } from '../../src/load/collect.js';
import type { LoadSourceConfig } from '../../src/config/schema.js';
import type { Sample } from '../../src/load/samples.js';

const NOW = 1_000_000;

function ports(stored: Sample[]) {
  const written: { samples: Sample[]; pushTag?: string }[] = [];
  const p: LoadPorts = {
    readSamples: async () => stored,
    writeSamples: async (samples, pushTag) => {
      written.push({ samples: [...samples], ...(pushTag === undefined ? {} : { pushTag }) });
    },
    queueClient: () => {
      throw new Error('no queue in this test');
    },
  };
  return { p, written };
}

const push: LoadSourceConfig = { source: 'push', targetPerReplica: 10 };
const unreachable: LoadSourceConfig = { source: 'http', url: 'http://127.0.0.1:1/load', timeout: 300, targetPerReplica: 5 };

describe('collectLoad', () => {
  it.each<{ name: string; source: LoadSourceConfig | undefined; pushed?: number; stored: Sample[]; persist?: boolean; want: { values: number[]; writes: number; tagged?: boolean; tpr: number; note: RegExp } }>([
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
    const got = await collectLoad(source, pushed === undefined ? undefined : { value: pushed, tag: 'W/"7"' }, p, { now: NOW, keepMs: 5_000, persist: persist ?? true });
    expect([...(got.samples instanceof SampleWindow ? got.samples.toArray() : got.samples)].map((s) => s.value)).toEqual(want.values);
    expect(written).toHaveLength(want.writes);
    expect(written.map((w) => w.pushTag)).toEqual(written.map(() => (want.tagged ? 'W/"7"' : undefined)));
    expect(got.targetPerReplica).toBe(want.tpr);
    expect(got.note).toMatch(want.note);
  });
});
