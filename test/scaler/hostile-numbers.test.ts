/**
 * Issue 22: numbers from outside, however hostile (NaN, ±Infinity, 1e308, negative, hex text,
 * a year's Retry-After, a 200 KiB text), reach the target and pool plans only through the gates
 * production uses (parseLoad, clampLoad, decodeSamples, capRetryAfter, capText), and every plan
 * stays within its documented bounds: a scale is a whole number in 0..10,000 (and within the
 * target's own bounds), a pool never raises past its instance limit, a wait is at most 30 min, a
 * stored text at most 1 KiB.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scaleSetInfoOf } from '../../src/azure/records.js';
import type { CachedInstance } from '../../src/cache/instance.js';
import { parseConfig } from '../../src/config/load.js';
import { capRetryAfter } from '../../src/errors/rate-limited.js';
import { MAX_LOAD, MAX_REPLICAS, MAX_RETRY_AFTER_MS, MAX_STORED_TEXT_BYTES } from '../../src/limits.js';
import { parseLoad } from '../../src/load/http-source.js';
import { clampLoad } from '../../src/load/load-number.js';
import { decodeSamples, encodeSamples } from '../../src/load/samples.js';
import { inventoryFromRows } from '../../src/pool/inventory.js';
import { planPool } from '../../src/pool/plan.js';
import { decideTarget, targetSettings } from '../../src/scaler/decide/decide-target.js';
import { capText } from '../../src/text/cap.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

const hostile: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e308, -1e308, Number.MAX_VALUE, Number.MIN_VALUE, -0, -1, 2 ** 53, 1e15 + 1),
  fc.double({ noNaN: false }),
  fc.integer({ min: -1_000_000, max: 100_000_000 }),
);
const hostileText: fc.Arbitrary<string> = fc.oneof(
  hostile.map(String),
  fc.constantFrom('0x10', '0b111', '0o7', 'Infinity', '1e400', ' ', '', '1_000', '١٢'),
  fc.string(),
);

/** A sample as a reconcile keeps it: an http answer through parseLoad, a pushed number, both through clampLoad. */
const sampleValue = fc.oneof(
  hostile.map((n) => clampLoad(n)?.value),
  hostileText.map((text) => {
    const reading = parseLoad(text, undefined, 'u');
    return reading.ok ? clampLoad(reading.value)?.value : undefined;
  }),
);

// Scale to zero off: a target at zero needs an activator, and the bounds are what is tested here.
const targetConfig = (minScale: number, maxScale: number, targetPerReplica: number, panic: boolean) =>
  parseConfig({
    kubernetes: {},
    targets: [{ name: 'web', minScale, maxScale, scaleTargetRef: { kind: 'Deployment', name: 'web' }, scaleToZero: { enabled: false }, panic: { enabled: panic }, load: { source: 'push', targetPerReplica } }],
  }).targets[0]!;

describe('hostile numbers through the target plan', () => {
  it('every planned scale is a whole number within the bounds and 0..10,000; NaN and Infinity never come out', () => {
    fc.assert(
      fc.property(
        fc.array(sampleValue, { maxLength: 8 }),
        hostile,
        hostile,
        fc.integer({ min: 0, max: MAX_REPLICAS }),
        fc.integer({ min: 0, max: MAX_REPLICAS }),
        fc.constantFrom(1e-9, 0.001, 1, 10, 1e12),
        fc.boolean(),
        fc.constantFrom('True' as const, 'False' as const, 'Unknown' as const),
        (values, ready, scale, min, max, perReplica, panic, activeStatus) => {
          const target = targetConfig(min, max, perReplica, panic);
          const stored = encodeSamples(values.flatMap((v, i) => (v === undefined ? [] : [{ at: NOW - 500 * i, value: v }])));
          const decision = decideTarget({
            record: { activeStatus, activeSince: NOW - 3_600_000, revision: 1 } as never,
            samples: decodeSamples(stored),
            holdLatest: true,
            observation: { scale, ready },
            settings: targetSettings(target, perReplica),
            probe: { ok: true, activatorInPath: false } as never,
            now: NOW,
          });
          if (decision.kind !== 'decided') return;
          if (decision.desired.kind === 'known') {
            expect(Number.isInteger(decision.desired.desired)).toBe(true);
            expect(decision.desired.desired).toBeGreaterThanOrEqual(0);
            expect(decision.desired.desired).toBeLessThanOrEqual(MAX_REPLICAS);
            expect(decision.desired.average).toBeLessThanOrEqual(MAX_LOAD);
          }
          const plan = decision.plan;
          for (const ms of plan.requeueAfterMs) expect(Number.isFinite(ms) && ms >= 0).toBe(true);
          if (plan.kind === 'hold') return;
          expect(Number.isInteger(plan.scale)).toBe(true);
          expect(plan.scale).toBeGreaterThanOrEqual(0);
          expect(plan.scale).toBeLessThanOrEqual(MAX_REPLICAS);
          if (plan.kind === 'apply') {
            expect(plan.scale).toBeGreaterThanOrEqual(Math.min(min, MAX_REPLICAS));
            if (max !== 0) expect(plan.scale).toBeLessThanOrEqual(Math.max(min, max));
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('hostile numbers through the pool plan', () => {
  const PREFIX = 'azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/';
  const vm = (n: number, message: string): CachedInstance => ({
    id: `${PREFIX}${n}`,
    name: `ss_${n}`,
    powerState: 'PowerState/running',
    state: n % 3 === 0 ? 'Creating' : 'Running',
    errorInfo: n % 3 === 0 ? { errorClass: 'Other', errorCode: 'VMExtensionProvisioningFailed', errorMessage: capText(message) } : null,
  });

  it('never raises a scale set past its instance limit or above maxCount, whatever ARM reports as its capacity (read as ARM answers are)', () => {
    fc.assert(
      fc.property(
        hostile,
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 60 }),
        fc.boolean(),
        fc.string({ minLength: 1, maxLength: 3 }).map((s) => s.repeat(1_500)),
        (capacity, listed, maxCount, chunkSize, instanceLimit, fastDelete, message) => {
          const instances = Array.from({ length: listed }, (_, n) => vm(n, message));
          const plan = planPool(
            {
              scaleSet: scaleSetInfoOf({ id: 'ss', name: 'ss', location: 'westeurope', orchestrationMode: 'Uniform', sku: { capacity }, etag: '"1"', provisioningState: 'Succeeded' }),
              instances,
              previous: instances,
              inventory: inventoryFromRows([]),
            },
            { name: 'workers', maxCount, chunkSize, instanceLimit, fastDelete },
            NOW,
          );
          for (const i of instances) expect(Buffer.byteLength(i.errorInfo?.errorMessage ?? '')).toBeLessThanOrEqual(MAX_STORED_TEXT_BYTES);
          if (plan.raise) {
            expect(Number.isInteger(plan.raise.to)).toBe(true);
            expect(plan.raise.to).toBeGreaterThan(plan.raise.from);
            expect(plan.raise.to).toBeLessThanOrEqual(instanceLimit);
            if (maxCount > 0) expect(plan.raise.to - plan.raise.from).toBeLessThanOrEqual(maxCount);
          }
          // Adopting running VMs creates none: only maxCount bounds it (0: no limit).
          if (maxCount > 0) expect(plan.adopt.length + (plan.raise ? plan.raise.to - plan.raise.from : 0)).toBeLessThanOrEqual(maxCount);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('hostile waits and texts', () => {
  it('a Retry-After of any size waits at most 30 min, and a text of any size is stored in at most 1 KiB', () => {
    fc.assert(
      fc.property(hostile, fc.string({ unit: 'binary', maxLength: 400 }), fc.nat({ max: 60 }), (ms, text, times) => {
        const { retryAfterMs, askedMs } = capRetryAfter(ms);
        expect(retryAfterMs >= 0 && retryAfterMs <= MAX_RETRY_AFTER_MS).toBe(true);
        if (askedMs !== undefined) expect(retryAfterMs).toBe(MAX_RETRY_AFTER_MS);
        expect(Buffer.byteLength(capText(text.repeat(times)))).toBeLessThanOrEqual(MAX_STORED_TEXT_BYTES);
      }),
      { numRuns: 300 },
    );
  });
});
