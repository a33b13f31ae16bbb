// runScaleStep driven as a replay would drive it: plain data, fake ports, a virtual clock and
// the record carried from step to step with applyRecordPatch.
import { describe, expect, it } from 'vitest';
import type { LoadWindow } from '../../src/load/decider.js';
import { applyRecordPatch, type TargetRecord } from '../../src/scaler/read/target-record.js';
import { runScaleStep } from '../../src/scaler/write/scale-step.js';
import { settingsOver } from './support.js';

const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);
const settings = settingsOver(20_000);

/** A gauge: the last value pushed at or before `now` holds. */
function gauge(pushes: [at: number, value: number][]): LoadWindow {
  return { average: (now) => pushes.filter(([at]) => at <= now).at(-1)?.[1] };
}

describe('runScaleStep on a virtual clock', () => {
  it('takes over 8 ready replicas without a write, then steps 8 → 4 → 2 → 1 once a push of 0 arrives', async () => {
    let spec = 8;
    const writes: { at: number; from: number; to: number }[] = [];
    let record: TargetRecord | undefined;
    const pushes: [number, number][] = [];
    for (let step = 0; step < 10; step++) {
      const now = T0 + step * 2_000;
      if (step === 5) pushes.push([now, 0]);
      const outcome = await runScaleStep(
        {
          record,
          samples: gauge(pushes),
          holdLatest: true,
          view: { kind: 'read', observed: { specReplicas: spec, ready: spec, resourceVersion: String(step) } },
          settings,
          loadNote: 'replay',
          trigger: 'replay',
          dryRun: false,
          now,
        },
        {
          target: {
            kind: 'kubernetes',
            write: (replicas, observed) => {
              writes.push({ at: now, from: observed.specReplicas!, to: replicas });
              spec = replicas;
              return Promise.resolve(undefined);
            },
          },
          probeActivator: () => Promise.resolve({ ok: true }),
          checkLease: () => Promise.resolve(),
        },
      );
      record = applyRecordPatch(record, outcome.recordPatch(record));
    }
    expect(writes).toEqual([
      { at: T0 + 10_000, from: 8, to: 4 },
      { at: T0 + 12_000, from: 4, to: 2 },
      { at: T0 + 14_000, from: 2, to: 1 },
    ]);
    expect(record).toMatchObject({ activeStatus: 'True', activeReason: 'AdoptedActive', adoptedAt: T0, requestedScale: 1 });
  });
});
