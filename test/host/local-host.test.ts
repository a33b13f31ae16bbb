import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/runtime.js';
import { startLocalHost } from '../../src/host/local-host.js';
import { startWorld } from '../support/world.js';

describe('local host', () => {
  it('runs the timer pass and delivers forced reconciles through the same handlers', async () => {
    const world = await startWorld();
    world.arm.sim.addScaleSet({ resourceGroup: 'rg', name: 'vmss', capacity: 1 });
    const file = world.configFile({ pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' }, maxCount: 1, reconcileRate: '0s,1' }] });
    // The handlers must find this runtime without $DROVER_CONFIG, as with `drover --config FILE run`.
    delete process.env.DROVER_CONFIG;
    const rt = await createRuntime({ configFile: file });
    const lines: string[] = [];
    const log = { debug: (...a: unknown[]) => lines.push(a.join(' ')), info: (...a: unknown[]) => lines.push(a.join(' ')), warn: () => undefined, error: (...a: unknown[]) => lines.push(a.join(' ')) };
    const host = await startLocalHost({ rt, log, schedule: '* * * * * *' });
    try {
      await rt.queues.reconcile({ kind: 'pool', name: 'workers', reason: 'forced by test' });
      const deadline = Date.now() + 10_000;
      const ran = (what: RegExp) => lines.some((l) => what.test(l));
      // The timer and the message race for the pool's lease; whichever wins records the decision.
      const decided = async () => (await rt.decisions.recent(Date.now(), 10)).some((d) => d.object === 'pool/workers');
      while (Date.now() < deadline && !(ran(/reconcileTimer: executing/) && ran(/reconcileQueue: executed message/) && (await decided()))) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(ran(/reconcileTimer: executing/)).toBe(true);
      expect(ran(/reconcileQueue: executed message/)).toBe(true);
      expect(await decided()).toBe(true);
      expect((await rt.storage.queue('reconcile').peekMessages()).peekedMessageItems).toHaveLength(0);
    } finally {
      await host.stop();
      await world.close();
    }
  });
});
