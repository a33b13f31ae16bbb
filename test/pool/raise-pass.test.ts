/**
 * A Pool target's raise reaches the scale set at once. In a timer pass the pool's own pass runs
 * beside its target's and takes the minute's reconcile token before the target has decided; the
 * pass the target's raise enqueues took it from the same bucket and was turned away, so the raise
 * waited a whole period for the next timer pass (and the target learned a start-up delay a
 * minute too long). On Azurite and the ARM simulator: the message the real port sends, delivered
 * by the queue function's handler (decoded, through the pending markers), and the pool's reconcile.
 * And a raise right after a scale-in does not wait for the deleted VM to leave the cache's listing.
 */
import { describe, expect, it } from 'vitest';
import { onReconcileMessage } from '../../src/handlers/reconcile-queue.js';
import { logHandlerFor, newInvocationContext } from '../../src/host/invocation.js';
import { silentLog } from '../../src/log.js';
import { encodeMessage, type ReconcileMessage } from '../../src/queue/messages.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { poolScale } from '../../src/scaler/read/pool-port.js';
import { isRaise } from '../../src/pool/wanted.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { ObjectOutcome } from '../../src/job/context.js';
import { armWorldPerFile } from '../support/arm.js';

const world = armWorldPerFile();
const RG = 'rg-raise';

const pass = (rt: Runtime, reason: string) => reconcileObject(rt, { kind: 'pool', name: 'r1' }, { reason }, { log: silentLog });
/** The queue function's delivery of a message the port sent. */
const deliver = async (rt: Runtime, message: ReconcileMessage) => {
  const context = newInvocationContext('reconcileQueue', { id: `m-${message.reason}`, dequeueCount: 1 }, logHandlerFor('reconcileQueue', silentLog));
  const outcome = await onReconcileMessage(rt, encodeMessage(message), context);
  if (!outcome) throw new Error(`the message was not reconciled: ${message.reason}`);
  return outcome;
};
const decisionOf = (o: ObjectOutcome) => (o.status === 'done' || o.status === 'failed' ? o.decision : undefined);
/** The real port of the runtime's first pool: writes a wanted count and answers the reconcile message it sent. */
function wantedWriter(rt: Runtime): (n: number) => Promise<ReconcileMessage> {
  const sent: ReconcileMessage[] = [];
  const port = poolScale({ holder: rt.holder, clock: rt.clock, stores: rt.stores, queues: { reconcile: (m) => (sent.push(m), Promise.resolve({ sent: true, dueAt: Date.now() })) } }, rt.config.pools[0]!);
  return async (n) => (await port.write(n), sent.at(-1)!);
}

describe("a raise of a Pool target's wanted count does not wait behind the timer's pool pass", () => {
  it("with reconcileRate 1m,1 the raise's pass raises capacity; a fall's pass, and a second raise's in the period, wait for a later pass", async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'r1', capacity: 2 });
    const rt = await world.runtime({ pools: [{ name: 'r1', scaleSet: { resourceGroup: RG, name: 'r1' }, maxCount: 10, creationRate: '0s,1', reconcileRate: '1m,1', instanceCache: { ttl: '0s' } }] });
    const write = wantedWriter(rt);

    // The first count a target writes raises a pool that held what it ran.
    expect(isRaise((await write(2)).reason)).toBe(true);
    // The timer's pass: it takes the period's reconcile token.
    expect((await pass(rt, 'timer')).status).toBe('done');
    const raise = await write(4);
    expect(isRaise(raise.reason)).toBe(true);
    expect(raise).toMatchObject({ kind: 'pool', name: 'r1', reason: expect.stringContaining('the wanted count is now 4') });
    // Another timer pass in the period is turned away, as before; the raise's own pass is not.
    expect(decisionOf(await pass(rt, 'timer'))?.decision).toBe('rate limited');
    const raised = await deliver(rt, raise);
    expect(decisionOf(raised)?.decision).not.toBe('rate limited');
    expect(scaleSet.capacity).toBe(4);

    const fall = await write(3);
    expect(isRaise(fall.reason)).toBe(false);
    expect(decisionOf(await deliver(rt, fall))?.decision).toBe('rate limited');
    // One raise pass per period: a target that raises on every push adds at most one pass.
    const again = await write(6);
    expect(isRaise(again.reason)).toBe(true);
    const second = decisionOf(await deliver(rt, again));
    expect(second?.decision).toBe('rate limited');
    expect(second?.reason).toContain('allows no raise pass yet');
    expect(scaleSet.capacity).toBe(4);
  }, 30_000);
});

describe('a raise right after a scale-in', () => {
  it('creates the VMs it asks for at once: the deleted VM, still listed Deleting, does not stand for a wanted one', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'r2', capacity: 3 });
    // The cache keeps its listing (a 5-minute TTL): the VM the scale-in deleted stays in it, Deleting.
    const rt = await world.runtime({ pools: [{ name: 'r2', scaleSet: { resourceGroup: RG, name: 'r2' }, maxCount: 10, creationRate: '0s,1', reconcileRate: '1s,100', instanceCache: { ttl: '5m' } }] });
    const write = wantedWriter(rt);
    const poolPass = (m: ReconcileMessage) => reconcileObject(rt, { kind: 'pool', name: 'r2' }, { reason: m.reason }, { log: silentLog });

    await poolPass(await write(3));
    const fell = decisionOf(await poolPass(await write(2)));
    expect(fell?.reason).toContain('deleting 1 by instance id');
    expect(scaleSet.capacity).toBe(2);

    const raised = decisionOf(await poolPass(await write(3)));
    // The decision log says why 3 managed VMs still bring up one.
    expect(raised?.reason).toContain('1 VM(s) still listed on their way out: counted on top of the wanted 3, not in its place');
    expect(raised?.decision).toBe('raised capacity 2 → 3');
    expect(scaleSet.capacity).toBe(3);
  }, 30_000);
});
