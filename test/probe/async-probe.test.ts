// The queue-backed async probe: offers recognised across instances, one attempt per message,
// claims against duplicates, the deadline, and what it records about the activator.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { parseConfig } from '../../src/config/load.js';
import { offerProbe, readProbe, runProbeAttempt, type ProbeFn, type ProbeProps, type ProbeStores } from '../../src/probe/async-probe.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { memoryTable } from '../support/memory-table.js';

const PERIOD = 1_000;
const TIMEOUT = 5_000;

const target = parseConfig({
  kubernetes: { kubeconfig: '/nonexistent' },
  targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, activator: { probeUrl: 'http://127.0.0.1:1/healthz', probePeriod: '1s', probeTimeout: '5s' } }],
}).targets[0]!;

/** The probe's stores on in-memory tables; `instance()` is another Functions instance on the same tables. */
function setup() {
  const clock = new ManualClock(Date.now());
  const tables = { probes: memoryTable('probes'), targetRows: memoryTable('targets') };
  const sent = { probe: 0, reconcile: 0 };
  const queues: ProbeStores['queues'] = {
    probe: async () => {
      sent.probe++;
    },
    reconcile: async () => {
      sent.reconcile++;
      return { sent: true, dueAt: clock.now() };
    },
  };
  const instance = (): ProbeStores => ({ ...tables, queues, clock, targets: [target] });
  const stores = instance();
  const probes: string[] = [];
  const answer = (ok: boolean): ProbeFn => async (url) => {
    probes.push(url);
    return ok ? { ok } : { ok, error: 'status 503, want 200' };
  };
  const attempt = (n: number, ok: boolean) => readProbe(stores, 'web').then((p) => runProbeAttempt(stores, { target: 'web', attempt: n, deadline: p!.deadline }, answer(ok), silentLog));
  const queued = (name: 'probe' | 'reconcile') => sent[name];
  return { clock, stores, instance, probes, attempt, queued };
}

describe('offerProbe', () => {
  it('recognises a probe in flight from another instance, and starts a new one after its deadline', async () => {
    const { stores, instance, clock } = setup();
    const other = instance();
    expect(await offerProbe(stores, target)).toBe(true);
    expect(await offerProbe(other, target)).toBe(false);
    clock.advance(TIMEOUT + 1);
    expect(await offerProbe(other, target)).toBe(true);
  });
});

describe('runProbeAttempt', () => {
  it('retries after the probe period until the activator answers, then records it and asks for a reconcile', async () => {
    const { stores, clock, attempt, queued, probes } = setup();
    await offerProbe(stores, target);
    expect(await attempt(0, false)).toBe('retrying');
    expect(queued('probe')).toBe(2);
    clock.advance(PERIOD);
    expect(await attempt(1, true)).toBe('succeeded');
    expect(probes).toHaveLength(2);
    expect(await readProbe(stores, 'web')).toMatchObject({ inFlight: false, attempts: 2, lastResult: 'activator' });
    expect(queued('reconcile')).toBe(1);
    expect((await readTargetRecord(stores.targetRows, 'web'))?.activatorSeenSince).toBe(clock.now());
  });

  it('gives up at the deadline and still asks for a reconcile; a failure forgets the activator', async () => {
    const { stores, clock, attempt, queued } = setup();
    await offerProbe(stores, target);
    await attempt(0, true);
    await offerProbe(stores, target);
    clock.advance(TIMEOUT - PERIOD + 1);
    expect(await attempt(0, false)).toBe('timed out');
    expect(await readProbe(stores, 'web')).toMatchObject({ inFlight: false, attempts: 1 });
    expect(queued('reconcile')).toBe(2);
    expect((await readTargetRecord(stores.targetRows, 'web'))?.activatorSeenSince).toBeUndefined();
  });

  it.each<{ name: string; claim: Partial<ProbeProps>; want: string }>([
    { name: 'an attempt another invocation is running is dropped', claim: { claim: 'someone', claimUntil: Number.MAX_SAFE_INTEGER }, want: 'claimed elsewhere' },
    { name: 'an attempt whose runner died (claim expired) is taken over', claim: { claim: 'someone', claimUntil: 1 }, want: 'retrying' },
    { name: 'a message ahead of the count (its sender died before recording) runs', claim: { attempts: 0 }, want: 'retrying' },
  ])('$name', async ({ claim, want }) => {
    const { stores, attempt } = setup();
    await offerProbe(stores, target);
    await stores.probes.update<ProbeProps>('web', 'probe', (row) => ({ ...row!.props, ...claim }));
    expect(await attempt(claim.attempts === 0 ? 1 : 0, false)).toBe(want);
  });

  it('a delivery after the attempt was recorded is stale', async () => {
    const { stores, attempt, probes } = setup();
    await offerProbe(stores, target);
    await attempt(0, false);
    expect(await attempt(0, false)).toBe('stale');
    expect(probes).toHaveLength(1);
  });
});
