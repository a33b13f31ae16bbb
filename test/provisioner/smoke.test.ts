/**
 * The seed's smoke test: a provider with room for 100, a limit of 10 in chunks of 4, and a
 * reconcile bucket of 3, so three passes bring up 4 + 4 + 2 machines without waiting and the
 * fourth waits for a token and then finds the pool at its limit.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { InProcessTokenBucket } from '../../src/provisioner/in-process-limiter.js';
import { MemoryProvider } from '../../src/provisioner/memory-provider.js';
import { runPoolPass } from '../../src/provisioner/provisioner.js';
import { RecordingLogger, heldSession, settle, track } from './fakes.js';

describe('provisioner smoke test', () => {
  it('brings a pool up to 10 machines in chunks of 4 and never past it', async () => {
    const clock = new ManualClock();
    const provider = new MemoryProvider({ capacity: 100, clock });
    const deps = { provider, inventory: provider.inventory, session: heldSession(), logger: new RecordingLogger() };
    const pool = {
      name: 'smoke',
      maxCount: 10,
      chunkSize: 4,
      reconcileLimiter: new InProcessTokenBucket({ intervalMs: 10_000, burst: 3 }, clock),
      creationLimiter: new InProcessTokenBucket({ intervalMs: 1_000, burst: 10 }, clock),
    };
    const signal = new AbortController().signal;

    const createdPerPass: number[] = [];
    for (let pass = 0; pass < 3; pass++) {
      const result = await runPoolPass(deps, pool, signal);
      createdPerPass.push(result.created.length);
      expect(provider.inventory.rows.length).toBeLessThanOrEqual(10);
    }
    expect(createdPerPass).toEqual([4, 4, 2]);

    const fourth = runPoolPass(deps, pool, signal);
    const state = track(fourth);
    await settle();
    expect(state.state).toBe('pending');
    clock.advance(10_000);
    expect((await fourth).decision).toMatchObject({ kind: 'atLimit', managed: 10 });

    const created = new Set(provider.createdIds);
    expect(provider.inventory.rows).toHaveLength(10);
    for (const row of provider.inventory.rows) expect(created.has(row.providerId)).toBe(true);
  });
});
