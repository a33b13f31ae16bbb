/**
 * The seed's smoke test, through planPool and the executor: a scale set with room for 100, a
 * limit of 10 in chunks of 4, and a reconcile bucket of 3, so three passes bring up 4 + 4 + 2
 * machines without waiting and the fourth waits for a token and then finds the pool at its limit.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { InProcessTokenBucket } from './support/token-bucket.js';
import { PoolModel } from './support/model.js';
import { settle, track } from './support/promises.js';

describe('provisioner smoke test', () => {
  it('brings a pool up to 10 machines in chunks of 4 and never past it', async () => {
    const clock = new ManualClock();
    const model = new PoolModel();
    const settings = { name: 'smoke', maxCount: 10, chunkSize: 4, instanceLimit: 100, fastDelete: false };
    const reconcile = new InProcessTokenBucket({ intervalMs: 10_000, burst: 3 }, clock);
    const creation = new InProcessTokenBucket({ intervalMs: 1_000, burst: 10 }, clock);
    const signal = new AbortController().signal;
    const draw = async (wanted: number) => {
      for (let i = 0; i < wanted; i++) await creation.wait(signal);
      return wanted;
    };
    const pass = async () => {
      await reconcile.wait(signal);
      return model.pass(settings, draw);
    };

    const createdPerPass: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { outcome } = await pass();
      createdPerPass.push(outcome.raise.kind === 'raised' ? outcome.raise.adopted.length : 0);
      expect(model.managedIds().length).toBeLessThanOrEqual(10);
    }
    expect(createdPerPass).toEqual([4, 4, 2]);
    expect(model.capacityWrites).toEqual([4, 8, 10]);

    const fourth = pass();
    const state = track(fourth);
    await settle();
    expect(state.state).toBe('pending');
    clock.advance(10_000);
    expect((await fourth).plan.decision).toMatchObject({ kind: 'atLimit', managed: 10 });

    expect(model.managedIds().sort()).toEqual(model.vms.map((v) => v.id).sort());
  });
});
