// The queue-backed async probe: offers recognised across instances, one attempt per message,
// claims against duplicates, the deadline, and what it records about the activator.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { offerProbe, readProbe, runProbeAttempt, type ProbeFn, type ProbeProps } from '../../src/probe/async-probe.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { readTargetRecord } from '../../src/scaler/shell/target-store.js';
import { azuriteStorage, writeConfig } from '../support/config.js';

const PERIOD = 1_000;
const TIMEOUT = 5_000;

async function setup() {
  const clock = new ManualClock(Date.now());
  const configFile = writeConfig({
    storage: azuriteStorage(),
    kubernetes: { kubeconfig: '/nonexistent' },
    targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, activator: { probeUrl: 'http://127.0.0.1:1/healthz', probePeriod: '1s', probeTimeout: '5s' } }],
  });
  const rt = await createRuntime({ configFile, clock });
  await rt.storage.ensure();
  const target = rt.config.targets[0]!;
  const probes: string[] = [];
  const answer = (ok: boolean): ProbeFn => async (url) => {
    probes.push(url);
    return ok ? { ok } : { ok, error: 'status 503, want 200' };
  };
  const attempt = (rtx: Runtime, n: number, ok: boolean) => readProbe(rtx, 'web').then((p) => runProbeAttempt(rtx, { target: 'web', attempt: n, deadline: p!.deadline }, answer(ok), silentLog));
  const queued = async (name: 'probe' | 'reconcile') => (await rt.storage.queue(name).getProperties()).approximateMessagesCount;
  return { clock, rt, target, probes, attempt, queued, configFile };
}

describe('offerProbe', () => {
  it('recognises a probe in flight from another instance, and starts a new one after its deadline', async () => {
    const { rt, target, clock, configFile } = await setup();
    const other = await createRuntime({ configFile, clock });
    expect(await offerProbe(rt, target)).toBe(true);
    expect(await offerProbe(other, target)).toBe(false);
    clock.advance(TIMEOUT + 1);
    expect(await offerProbe(other, target)).toBe(true);
  });
});

describe('runProbeAttempt', () => {
  it('retries after the probe period until the activator answers, then records it and asks for a reconcile', async () => {
    const { rt, target, clock, attempt, queued, probes } = await setup();
    await offerProbe(rt, target);
    expect(await attempt(rt, 0, false)).toBe('retrying');
    expect(await queued('probe')).toBe(2);
    clock.advance(PERIOD);
    expect(await attempt(rt, 1, true)).toBe('succeeded');
    expect(probes).toHaveLength(2);
    expect(await readProbe(rt, 'web')).toMatchObject({ inFlight: false, attempts: 2, lastResult: 'activator' });
    expect(await queued('reconcile')).toBe(1);
    expect((await readTargetRecord(rt.table('targets'), 'web'))?.activatorSeenSince).toBe(clock.now());
  });

  it('gives up at the deadline and still asks for a reconcile; a failure forgets the activator', async () => {
    const { rt, target, clock, attempt, queued } = await setup();
    await offerProbe(rt, target);
    await attempt(rt, 0, true);
    await offerProbe(rt, target);
    clock.advance(TIMEOUT - PERIOD + 1);
    expect(await attempt(rt, 0, false)).toBe('timed out');
    expect(await readProbe(rt, 'web')).toMatchObject({ inFlight: false, attempts: 1 });
    expect(await queued('reconcile')).toBe(2);
    expect((await readTargetRecord(rt.table('targets'), 'web'))?.activatorSeenSince).toBeUndefined();
  });

  it.each<{ name: string; claim: Partial<ProbeProps>; want: string }>([
    { name: 'an attempt another invocation is running is dropped', claim: { claim: 'someone', claimUntil: Number.MAX_SAFE_INTEGER }, want: 'claimed elsewhere' },
    { name: 'an attempt whose runner died (claim expired) is taken over', claim: { claim: 'someone', claimUntil: 1 }, want: 'retrying' },
    { name: 'a message ahead of the count (its sender died before recording) runs', claim: { attempts: 0 }, want: 'retrying' },
  ])('$name', async ({ claim, want }) => {
    const { rt, target, attempt } = await setup();
    await offerProbe(rt, target);
    await rt.table('probes').update<ProbeProps>('web', 'probe', (row) => ({ ...row!.props, ...claim }));
    expect(await attempt(rt, claim.attempts === 0 ? 1 : 0, false)).toBe(want);
  });

  it('a delivery after the attempt was recorded is stale', async () => {
    const { rt, target, attempt, probes } = await setup();
    await offerProbe(rt, target);
    await attempt(rt, 0, false);
    expect(await attempt(rt, 0, false)).toBe('stale');
    expect(probes).toHaveLength(1);
  });
});
