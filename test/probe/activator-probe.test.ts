// The synchronous activator probe against the activator simulator: upstream TestActivatorProbe's
// four rows, plus absence, timeout, abort and the headers the activator sees.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { probeActivator } from '../../src/probe/activator-probe.js';
import { startActivatorSim, type ActivatorBehaviour, type ActivatorSim } from '../../sim/activator/server.js';

let sim: ActivatorSim;
beforeAll(async () => {
  sim = await startActivatorSim();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
  sim.behaviour = 'present';
});

describe('probeActivator', () => {
  it.each<{ name: string; behaviour: ActivatorBehaviour; error?: RegExp }>([
    { name: '200 with body activator: ok', behaviour: 'present' },
    { name: '400 with another body: fails on the body', behaviour: { status: 400, body: 'wrong header, I guess?' }, error: /body "wrong header, I guess\?", want "activator"/ },
    { name: '200 with a wrong body: fails on the body', behaviour: { status: 200, body: 'haxoorprober' }, error: /body "haxoorprober"/ },
    { name: 'connection dropped: fails with the transport error', behaviour: 'reset', error: /fetch failed/ },
    { name: 'activator absent (503): fails', behaviour: 'absent', error: /body "no activator endpoints"/ },
    { name: 'right body with another status: fails on the status', behaviour: { status: 500, body: 'activator' }, error: /status 500, want 200/ },
  ])('$name', async ({ behaviour, error }) => {
    sim.behaviour = behaviour;
    const result = await probeActivator(sim.probeUrl);
    if (error === undefined) expect(result).toEqual({ ok: true });
    else {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toMatch(error);
    }
    expect(sim.probes).toBe(1);
  });

  it('sends the Drover user agent and the activator probe header', async () => {
    await probeActivator(sim.probeUrl);
    expect(sim.seenHeaders[0]).toMatchObject({
      'user-agent': 'Drover-Autoscaling-Probe',
      'k-network-probe': 'activator',
    });
  });

  it('gives up after the timeout when the activator does not answer', async () => {
    sim.behaviour = 'hang';
    const started = Date.now();
    const result = await probeActivator(sim.probeUrl, { timeoutMs: 50 });
    expect(result).toEqual({ ok: false, error: `probe of ${sim.probeUrl}: no answer within 50 ms` });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('stops when the caller aborts', async () => {
    sim.behaviour = 'hang';
    const controller = new AbortController();
    const pending = probeActivator(sim.probeUrl, { timeoutMs: 5000, signal: controller.signal });
    controller.abort(new Error('reconcile cancelled'));
    expect(await pending).toEqual({ ok: false, error: `probe of ${sim.probeUrl}: reconcile cancelled` });
  });

  it('follows the simulator switching the activator off and on', async () => {
    sim.setPresent(false);
    expect((await probeActivator(sim.probeUrl)).ok).toBe(false);
    sim.setPresent(true);
    expect((await probeActivator(sim.probeUrl)).ok).toBe(true);
  });

  it('without a probe URL fails without a request', async () => {
    expect(await probeActivator(undefined)).toEqual({ ok: false, error: 'no probeUrl configured' });
    expect(sim.probes).toBe(0);
  });
});
