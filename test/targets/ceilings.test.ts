// Issue 22: a load from outside cannot size a target past Drover's ceilings. Before the fix a
// target with maxScale 0 (unbounded) and a pushed load of 1e308 grew 1000× a pass (1e15
// replicas within seconds), and an http answer of `0x10` was taken as 16.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { MAX_LOAD, MAX_REPLICAS } from '../../src/limits.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { startTargetWorld, worldPerTest, WEB, webTarget } from './support.js';

const opened = worldPerTest();

async function passes(count: number, clock: ManualClock, load?: number): Promise<(number | undefined)[]> {
  const seen: (number | undefined)[] = [];
  for (let n = 0; n < count; n++) {
    clock.advance(1_000);
    if (load !== undefined) await opened.world!.rt.stores.pushes.record('web', load);
    await reconcileObject(opened.world!.rt, { kind: 'target', name: 'web' }, { reason: 'forced' }, { log: silentLog });
    seen.push(opened.world!.kube.inspect(WEB)?.specReplicas);
  }
  return seen;
}

describe('a target with maxScale 0 and an absurd load', () => {
  it('is pushed 1e308 and never asks for more than 10,000 replicas', async () => {
    const clock = new ManualClock(Date.now());
    opened.world = await startTargetWorld((activator) => [webTarget(activator, { maxScale: 0, load: { source: 'push', targetPerReplica: 1 } })], { clock });
    opened.world.kube.add(WEB, { replicas: 1 });

    const seen = await passes(5, clock, 1e308);

    expect(Math.max(...seen.map((s) => s ?? 0))).toBe(MAX_REPLICAS);
    expect(seen.at(-1)).toBe(MAX_REPLICAS);
    const decisions = await opened.world.rt.decisions.recent(clock.now(), 20);
    expect(decisions.some((d) => d.reason.includes(`clamped from 1e+308`))).toBe(true);
    const record = await readTargetRecord(opened.world.rt.table('targets'), 'web');
    expect(record?.desiredScale).toBeLessThanOrEqual(MAX_REPLICAS);
  }, 30_000);
});

describe('an http load source', () => {
  async function serve(answers: string[]): Promise<string> {
    let n = 0;
    opened.server = http.createServer((_req, res) => res.writeHead(200).end(answers[Math.min(n++, answers.length - 1)]));
    await new Promise<void>((resolve) => opened.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(opened.server.address() as AddressInfo).port}/load`;
  }

  it('refuses a hexadecimal or binary answer instead of reading 16 or 7', async () => {
    const url = await serve(['0x10', '0b111']);
    const clock = new ManualClock(Date.now());
    opened.world = await startTargetWorld((activator) => [webTarget(activator, { load: { source: 'http', url, timeout: '1s', targetPerReplica: 1 } })], { clock });
    opened.world.kube.add(WEB, { replicas: 2 });

    const seen = await passes(3, clock);

    expect(seen).toEqual([2, 2, 2]);
    const record = await readTargetRecord(opened.world.rt.table('targets'), 'web');
    expect(record?.lastError).toMatch(/"0b111" is not a load \(a decimal number ≥ 0\)/);
    expect(record?.desiredScale).toBeUndefined();
  }, 30_000);

  it('takes an answer of 1e308 as the load ceiling, and the target stops at 10,000', async () => {
    const url = await serve(['1e308']);
    const clock = new ManualClock(Date.now());
    opened.world = await startTargetWorld((activator) => [webTarget(activator, { load: { source: 'http', url, timeout: '1s', targetPerReplica: 1e-3 } })], { clock });
    opened.world.kube.add(WEB, { replicas: 1 });

    const seen = await passes(4, clock);

    expect(seen.at(-1)).toBe(MAX_REPLICAS);
    const decisions = await opened.world.rt.decisions.recent(clock.now(), 20);
    expect(decisions.some((d) => d.reason.includes(`http ${MAX_LOAD} (clamped from 1e+308`))).toBe(true);
  }, 30_000);
});
