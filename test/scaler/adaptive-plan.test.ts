// The adaptive policy through the production scale step (planDriver → runScaleStep → planTarget):
// random traces never leave the bounds and never lower a target while its source fails or no
// sample is known; the start-up delay it learns is in the row, so a new process starts from it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startupDelayIn } from '../../src/scaler/recommend/adaptive-stage.js';
import { MINUTE, SECOND, T0, planDriver, push, settingsOf } from './plan-driver.js';

const step = fc.record({
  dtMs: fc.integer({ min: 1 * SECOND, max: 5 * MINUTE }),
  load: fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
  failed: fc.boolean(),
  readyShare: fc.constantFrom(0, 0.5, 1),
});

describe('the adaptive policy over random traces', () => {
  it('stays within minScale and maxScale, and lowers nothing while the source fails or no sample is known', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 5, max: 40 }), fc.array(step, { minLength: 1, maxLength: 40 }), async (minScale, maxScale, steps) => {
        const settings = settingsOf({ policy: 'adaptive', minScale, maxScale, scaleToZero: { enabled: false }, ...push(10) });
        const d = planDriver(settings, { current: minScale });
        let now = T0;
        for (const s of steps) {
          now += s.dtMs;
          const before = d.current;
          const out = await d.step({ at: now, load: s.load, failed: s.failed, ready: Math.floor(before * s.readyShare) });
          expect(d.current).toBeGreaterThanOrEqual(minScale);
          expect(d.current).toBeLessThanOrEqual(maxScale);
          if (s.failed || s.load === undefined) expect(out.written === undefined || out.written[1] > out.written[0]).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('StartupDelay through the plan', () => {
  it('three raises ready 4 minutes after their write teach 4 minutes, kept in the row a new process reads', async () => {
    const settings = settingsOf({ policy: 'adaptive', minScale: 1, maxScale: 100, scaleToZero: { enabled: false }, ...push(10) });
    const adaptive = settings.policy!.adaptive!;
    expect(startupDelayIn(undefined, adaptive)).toEqual({ ms: 30 * SECOND, from: 'default' });
    const d = planDriver(settings, { current: 1 });
    let now = T0;
    for (const load of [50, 150, 300]) {
      now += 10 * MINUTE;
      const raised = await d.step({ at: now, load, ready: d.current });
      expect(raised.written![1]).toBeGreaterThan(raised.written![0]);
      // Not ready yet a minute later; all ready four minutes after the write.
      await d.step({ at: now + MINUTE, load, ready: raised.written![0] });
      await d.step({ at: now + 4 * MINUTE, load, ready: d.current });
      now += 4 * MINUTE;
    }
    // Another process starts from the stored row only.
    const stored = JSON.parse(JSON.stringify(d.record));
    expect(startupDelayIn(stored, adaptive)).toEqual({ ms: 4 * MINUTE, from: 'learned' });
  });

  it('policy knative keeps none of the adaptive fields', async () => {
    const d = planDriver(settingsOf({ policy: 'knative', minScale: 1, maxScale: 100, ...push(10) }), { current: 1 });
    await d.step({ at: T0 + MINUTE, load: 50 });
    expect(d.record).not.toHaveProperty('loadMinutes');
    expect(d.record).not.toHaveProperty('startupDelay');
  });
});
