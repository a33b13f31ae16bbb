/**
 * planPool and the executor against a model of ARM and the tables, through random interleavings:
 * crashes between any two writes, 412s and throttling on any call, VMs deleted by Azure, lists
 * that leave a VM out, broken VMs, passes whose snapshots overlap. After every step: no machine
 * lost or doubled, no capacity raised above maxCount by Drover, the switch held exactly while
 * the views disagree, and nothing written while it holds. A counterexample becomes a table row.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { executePlan } from '../../src/pool/execute.js';
import { planPool, type PoolSettings } from '../../src/pool/plan.js';
import { CrashError, PoolModel, throttled, type WriteKind } from './support/model.js';
import { RateLimitedError } from '../../src/errors/rate-limited.js';

type Fault = { at: number; kind: 'crash' | 'throttle' } | { kind: 'race' } | undefined;
type Step =
  | { kind: 'pass'; fault: Fault; tokens: number }
  | { kind: 'overlapping'; fault: Fault }
  | { kind: 'azureDelete'; pick: number }
  | { kind: 'hide'; pick: number }
  | { kind: 'unhide' }
  | { kind: 'settle' }
  | { kind: 'breakNext'; count: number }
  | { kind: 'time' };

const fault: fc.Arbitrary<Fault> = fc.oneof(
  fc.constant(undefined),
  fc.record({ at: fc.integer({ min: 1, max: 12 }), kind: fc.constantFrom('crash' as const, 'throttle' as const) }),
  fc.constant({ kind: 'race' as const }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('pass' as const), fault, tokens: fc.integer({ min: 0, max: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('overlapping' as const), fault }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('azureDelete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hide' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unhide' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('breakNext' as const), count: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'time' as const }) },
);

function arm(model: PoolModel, f: Fault): void {
  let calls = 0;
  model.fault = (kind: WriteKind) => {
    calls++;
    if (f?.kind === 'race' && kind === 'setCapacity') model.etag++;
    if (f && f.kind !== 'race' && calls === f.at) throw f.kind === 'crash' ? new CrashError('crash') : throttled();
  };
}

async function survive(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (!(err instanceof CrashError) && !(err instanceof RateLimitedError)) throw err;
  }
}

async function apply(model: PoolModel, settings: PoolSettings, s: Step): Promise<boolean> {
  switch (s.kind) {
    case 'pass':
      arm(model, s.fault);
      await survive(() => model.pass(settings, async (n) => Math.min(n, s.tokens)));
      model.fault = () => undefined;
      return s.fault === undefined;
    case 'overlapping': {
      // Two passes read before either writes (a lease that expired mid-pass): ETags decide.
      const first = planPool(model.snapshot(), settings, model.now);
      const second = planPool(model.snapshot(), settings, model.now);
      await survive(() => executePlan(first, model.deps()));
      arm(model, s.fault);
      await survive(() => executePlan(second, model.deps()));
      model.fault = () => undefined;
      return false;
    }
    case 'azureDelete': {
      const live = model.vms.filter((v) => v.state === 'Running');
      if (live.length) model.azureDelete(live[s.pick % live.length]!.id);
      return false;
    }
    case 'hide': {
      const live = model.vms.filter((v) => v.state === 'Running' && !v.broken);
      if (live.length) model.hidden.add(live[s.pick % live.length]!.id);
      return false;
    }
    case 'unhide':
      model.hidden.clear();
      return false;
    case 'settle':
      model.settleDeletes();
      return false;
    case 'breakNext':
      model.brokenNext += s.count;
      return false;
    case 'time':
      model.now += 31 * 60_000;
      return false;
  }
}

describe('pool passes against a model of ARM and the tables', () => {
  it('never lose or double a machine, never raise past maxCount, and hold the switch exactly while the views disagree', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 6 }),
        fc.array(step, { minLength: 1, maxLength: 30 }),
        async (maxCount, chunkSize, initial, steps) => {
          const model = new PoolModel();
          model.addRunning(initial);
          const settings: PoolSettings = { name: 'p', maxCount, chunkSize, instanceLimit: 50, fastDelete: true };
          for (const s of steps) {
            const managedBefore = new Set(model.managedIds());
            const clean = await apply(model, settings, s);
            const exists = new Set(model.vms.map((v) => v.id));
            // No machine lost: a row goes only with its VM.
            for (const id of managedBefore) if (exists.has(id)) expect(model.rows.has(id), `row of ${id} lost after ${s.kind}`).toBe(true);
            // No machine doubled: Drover never raises capacity past maxCount, and so never manages more.
            for (const c of model.capacityWrites) expect(c).toBeLessThanOrEqual(maxCount);
            // Nothing written while the switch holds.
            expect(model.writesWhileIncomplete).toEqual([]);
            // After a clean pass the switch is recorded exactly while the views disagree.
            if (clean) expect(model.rows.has('~safety'), `switch after a clean pass`).toBe(model.switchExpected);
          }
          // Once the list is whole again and time has passed, the pool converges: rows and VMs agree.
          model.hidden.clear();
          model.fault = () => undefined;
          model.settleDeletes();
          for (let i = 0; i < 6; i++) {
            model.now += 31 * 60_000;
            model.settleDeletes();
            await model.pass(settings);
          }
          expect(model.rows.has('~safety')).toBe(false);
          const healthy = model.vms.filter((v) => v.state === 'Running' && !v.broken).map((v) => v.id);
          const managed = model.managedIds().filter((id) => model.rows.get(id)?.props.providerStatus !== 'ProvisioningFailedPermanent');
          // Every healthy VM is managed, unless the pool is full (adoption is bounded by maxCount).
          if (managed.length < maxCount) for (const id of healthy) expect(model.rows.has(id), `healthy VM ${id} unmanaged at the end`).toBe(true);
          expect(managed.length).toBeLessThanOrEqual(Math.max(maxCount, initial));
        },
      ),
      { numRuns: 200 },
    );
  }, 60_000);
});
