/** The pass around the decision: limiter, lease, parallel listing with cancellation. */
import { describe, expect, it } from 'vitest';
import { isListingError, isProvisionerConfigError } from '../../src/provisioner/errors.js';
import type { Limiter, Session } from '../../src/provisioner/ports.js';
import { runPoolPass } from '../../src/provisioner/provisioner.js';
import type { PoolPassDeps, PoolProvisioning } from '../../src/provisioner/provisioner.js';
import { LeaseExpiredError, isLeaseExpired } from '../../src/state/leases.js';
import type { LeaseGuard } from '../../src/state/leases.js';
import type { SharedLimiter } from '../../src/state/limiter.js';
import {
  K, RecordingLogger, ScriptedInventory, ScriptedProvider, U, hangUntilAborted, heldSession, openLimiter, row, settle, track,
} from './fakes.js';

// The state layer's lease and shared bucket plug into the ports as they are (tsc checks this).
const _leaseIsASession = (guard: LeaseGuard): Session => guard;
const _sharedBucketIsALimiter = (limiter: SharedLimiter): Limiter => limiter;

function setup(overrides: Partial<PoolPassDeps> = {}, pool: Partial<PoolProvisioning> = {}) {
  const provider = new ScriptedProvider([U('a'), U('b')]);
  const inventory = new ScriptedInventory();
  const logger = new RecordingLogger();
  const deps: PoolPassDeps = { provider, inventory, session: heldSession(), logger, ...overrides };
  const config: PoolProvisioning = {
    name: 'workers',
    maxCount: 10,
    chunkSize: 20,
    reconcileLimiter: openLimiter(),
    creationLimiter: openLimiter(),
    ...pool,
  };
  return { provider, inventory, logger, run: (signal = new AbortController().signal) => runPoolPass(deps, config, signal) };
}

describe('runPoolPass', () => {
  it('lists nothing until the reconcile limiter grants a token', async () => {
    let grant!: () => void;
    const reconcileLimiter: Limiter = { wait: () => new Promise<void>((resolve) => (grant = resolve)) };
    const { provider, run } = setup({}, { reconcileLimiter });

    const pass = track(run());
    await settle();
    expect(provider.listSignal).toBeUndefined();

    grant();
    await settle();
    expect(pass.state).toBe('resolved');
    expect(provider.createCalls).toEqual(['a', 'b']);
  });

  it('a reconcile limiter that refuses ends the pass with its error', async () => {
    const refused = new Error("rate: Wait(n=1) exceeds limiter's burst 0");
    const { provider, run } = setup({}, { reconcileLimiter: { wait: () => Promise.reject(refused) } });
    await expect(run()).rejects.toBe(refused);
    expect(provider.listSignal).toBeUndefined();
  });

  it('checks the config as the seed does before waiting on anything', async () => {
    let waited = false;
    const reconcileLimiter: Limiter = { wait: () => Promise.resolve(void (waited = true)) };
    const { run } = setup({}, { chunkSize: 0, reconcileLimiter });
    await expect(run()).rejects.toSatisfy((err) => isProvisionerConfigError(err) && err.message === 'ChunkSize must be set');
    expect(waited).toBe(false);
  });

  it('a lease lost while waiting on the reconcile limiter stops the pass before listing', async () => {
    const session: Session = { check: () => Promise.reject(new LeaseExpiredError('pool/workers', 'expired 5 ms ago')) };
    const { provider, run } = setup({ session });
    await expect(run()).rejects.toSatisfy(isLeaseExpired);
    expect(provider.listSignal).toBeUndefined();
  });

  it('a lease that expires mid-pass stops it between two creations', async () => {
    let checks = 0;
    const session: Session = {
      // Held for the listing and the first creation, gone by the second.
      check: () => (++checks <= 2 ? Promise.resolve() : Promise.reject(new LeaseExpiredError('pool/workers', 'expired 1 ms ago'))),
    };
    const { provider, run } = setup({ session });
    await expect(run()).rejects.toThrow('lease on pool/workers lost: expired 1 ms ago');
    expect(provider.createCalls).toEqual(['a']);
  });

  it.each([
    { name: 'a failing provider listing aborts the inventory listing', failing: 'provider' as const },
    { name: 'a failing inventory listing aborts the provider listing', failing: 'inventory' as const },
  ])('$name', async ({ failing }) => {
    const boom = new Error('503 Service Unavailable');
    const provider = new ScriptedProvider([], (signal) => (failing === 'provider' ? Promise.reject(boom) : hangUntilAborted(signal)));
    const inventory = new ScriptedInventory([], (signal) => (failing === 'inventory' ? Promise.reject(boom) : hangUntilAborted(signal)));
    const { run } = setup({ provider, inventory });

    const err = await run().catch((e: unknown) => e);

    expect(isListingError(err) && err.side).toBe(failing);
    expect(err).toMatchObject({ message: `listing ${failing} machines failed: 503 Service Unavailable`, cause: boom });
    const other = failing === 'provider' ? inventory : provider;
    expect(other.listSignal?.aborted).toBe(true);
    expect(provider.createCalls).toEqual([]);
  });

  it('lists both sides at once', async () => {
    let inventoryStarted = false;
    const provider = new ScriptedProvider([], async () => {
      await settle();
      expect(inventoryStarted).toBe(true);
      return [];
    });
    const inventory = new ScriptedInventory([], () => Promise.resolve(void (inventoryStarted = true)).then(() => []));
    await expect(setup({ provider, inventory }).run()).resolves.toMatchObject({ decision: { kind: 'noCapacity' } });
  });

  it('an abort while listing ends the pass with the abort reason, unwrapped', async () => {
    const provider = new ScriptedProvider([], hangUntilAborted);
    const inventory = new ScriptedInventory([], hangUntilAborted);
    const controller = new AbortController();
    const stop = new Error('host shutting down');
    const pass = setup({ provider, inventory }).run(controller.signal);
    await settle();
    controller.abort(stop);
    await expect(pass).rejects.toBe(stop);
    expect(provider.listSignal?.aborted).toBe(true);
    expect(inventory.listSignal?.aborted).toBe(true);
  });

  it('releases the listing signal once both listings are in', async () => {
    const { provider, run } = setup();
    await run();
    expect(provider.listSignal?.aborted).toBe(true);
  });

  it('the safety switch names every machine of both sides in the log and creates nothing', async () => {
    const provider = new ScriptedProvider([K('x'), U('a')]);
    const inventory = new ScriptedInventory([row('y')]);
    const { logger, run } = setup({ provider, inventory });
    const result = await run();
    expect(result.decision.kind).toBe('safetySwitch');
    expect(logger.errors()).toEqual([
      'pool workers: Provider machine has no corresponding machine in inventory. (PID: x)',
      'pool workers: Provider machine referred to in inventory but missing in provider. (PID: y)',
      "pool workers: Something's very wrong. Bailing early and refusing to do any work.",
    ]);
    expect(provider.createCalls).toEqual([]);
  });

  it('waits on the creation limiter once per machine', async () => {
    let waits = 0;
    const creationLimiter: Limiter = { wait: () => Promise.resolve(void waits++) };
    const { provider, run } = setup({}, { creationLimiter });
    const result = await run();
    expect(waits).toBe(2);
    expect(result.created).toEqual(['a', 'b']);
    expect(provider.createCalls).toEqual(['a', 'b']);
  });

  it('a creation limiter that refuses ends the pass with its error', async () => {
    const refused = new Error("rate: Wait(n=1) exceeds limiter's burst 0");
    const { provider, run } = setup({}, { creationLimiter: { wait: () => Promise.reject(refused) } });
    await expect(run()).rejects.toBe(refused);
    expect(provider.createCalls).toEqual([]);
  });
});
