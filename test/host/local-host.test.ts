import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/runtime.js';
import { startLocalHost } from '../../src/host/local-host.js';
import { checkSchedule, nextOccurrence } from '../../src/host/timer.js';
import { SUBSCRIPTION, azuriteStorage, writeConfig } from '../support/config.js';

describe('NCRONTAB schedules', () => {
  it('computes the next occurrence with a seconds field', () => {
    const at = Date.UTC(2026, 10, 30, 10, 0, 2);
    expect(nextOccurrence('0 */1 * * * *', at)).toBe(Date.UTC(2026, 10, 30, 10, 1, 0));
    expect(nextOccurrence('*/5 * * * * *', at)).toBe(Date.UTC(2026, 10, 30, 10, 0, 5));
  });

  it.each(['*/5 * * * *', 'every minute', '99 * * * * *'])('refuses %j', (schedule) => {
    expect(() => checkSchedule(schedule)).toThrow(/invalid schedule/);
  });
});

describe('local host', () => {
  it('runs the timer pass and delivers forced reconciles through the same handlers', async () => {
    const file = writeConfig({
      storage: azuriteStorage(),
      azure: { subscriptionId: SUBSCRIPTION, credential: 'dev', resourceManagerEndpoint: 'https://127.0.0.1:1' },
      pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' } }],
    });
    process.env.DROVER_CONFIG = file;
    const rt = await createRuntime({ configFile: file });
    const lines: string[] = [];
    const log = { info: (...a: unknown[]) => lines.push(a.join(' ')), warn: () => undefined, error: (...a: unknown[]) => lines.push(a.join(' ')) };
    const host = await startLocalHost({ rt, log, schedule: '* * * * * *' });
    try {
      await rt.queues.reconcile({ kind: 'pool', name: 'workers', reason: 'forced by test' });
      const deadline = Date.now() + 10_000;
      let decisions: string[] = [];
      while (Date.now() < deadline) {
        decisions = (await rt.decisions.recent(Date.now(), 100)).map((d) => d.reason);
        if (decisions.some((r) => r.includes('forced by test')) && decisions.some((r) => r.includes('(timer)'))) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(decisions.some((r) => r.includes('forced by test'))).toBe(true);
      expect(decisions.some((r) => r.includes('(timer)'))).toBe(true);
      expect((await rt.storage.queue('reconcile').peekMessages()).peekedMessageItems).toHaveLength(0);
    } finally {
      await host.stop();
    }
  });
});
