/**
 * What the log and the decision log say must be what happened: an adopted VM is not "created",
 * a reserved slot is no machine, a back-off is named as the cause, a stop is no failure.
 */
import { describe, expect, it } from 'vitest';
import { reconcileObject } from '../../src/reconcile/object.js';
import { silentLog, type Log } from '../../src/log.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { describeTargetDecision } from '../../src/scaler/decide/follow-ups.js';
import { armWorldPerFile } from '../support/arm.js';

const world = armWorldPerFile();

const pool = (name: string, extra: object = {}) => ({
  name,
  scaleSet: { resourceGroup: 'rg-msgs', name },
  creationRate: '0s,1',
  reconcileRate: '0s,1',
  instanceCache: { ttl: '5m' },
  ...extra,
});

function recording(): { log: Log; lines: string[] } {
  const lines: string[] = [];
  const put = (level: string) => (...a: unknown[]) => void lines.push(`${level} ${a.join(' ')}`);
  return { log: { debug: put('debug'), info: put('info'), warn: put('warn'), error: put('error') }, lines };
}

const pass = (rt: Runtime, name: string, log: Log = silentLog, signal?: AbortSignal) =>
  reconcileObject(rt, { kind: 'pool', name }, { reason: 'test' }, { log, ...(signal ? { signal } : {}) });

describe('pool messages', () => {
  it('an existing VM is adopted and new ones come from a capacity raise: nothing says "created", no slot id shows', async () => {
    world.sim.addScaleSet({ resourceGroup: 'rg-msgs', name: 'adopt', capacity: 1 });
    const rt = await world.runtime({ pools: [pool('adopt', { maxCount: 3, chunkSize: 3 })] });
    const { log, lines } = recording();
    const first = await pass(rt, 'adopt', log);
    expect(first.status === 'done' && first.decision).toMatchObject({ decision: 'raised capacity 1 → 3', reason: expect.stringMatching(/adopted 1 running VM\(s\).*raised capacity 1 → 3/) });
    expect(lines.some((l) => /Created new machine|slot:/.test(l))).toBe(false);
    // A decision that changed something is news; the same pool at its limit on the next tick is not.
    expect(lines).toContainEqual(expect.stringMatching(/^info pool\/adopt: raised capacity 1 → 3 — /));
    const next = recording();
    await new Promise((r) => setTimeout(r, 120));
    await pass(rt, 'adopt', next.log);
    expect(next.lines).toContainEqual(expect.stringMatching(/^debug pool\/adopt: at limit — /));
    expect(next.lines.filter((l) => !l.startsWith('debug'))).toEqual([]);
  });

  it('while creations back off, the decision names the back-off, not a lack of capacity', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: 'rg-msgs', name: 'backoff', capacity: 0 });
    const rt = await world.runtime({ pools: [pool('backoff', { maxCount: 5, chunkSize: 1, enableFastDeleteOnFailedProvisioning: true })] });
    scaleSet.failNextCreations(1);
    await pass(rt, 'backoff');
    await new Promise((r) => setTimeout(r, 120));
    const deleting = await pass(rt, 'backoff');
    expect(deleting.status === 'done' && deleting.decision.reason).toMatch(/fast-deleted 1/);
    const after = await pass(rt, 'backoff');
    expect(after.status).toBe('done');
    const decision = after.status === 'done' ? after.decision : undefined;
    expect(decision?.decision).toBe('backed off');
    expect(decision?.reason).toMatch(/creations backed off until \S+ after failed/);
    expect(decision?.reason).not.toMatch(/No more capacity/);
  });

  it('a pass cut short by the host stopping is "aborted" and handed on, not "failed"', async () => {
    world.sim.addScaleSet({ resourceGroup: 'rg-msgs', name: 'stopping', capacity: 0 });
    const rt = await world.runtime({ pools: [pool('stopping', { maxCount: 1 })] });
    const outcome = await pass(rt, 'stopping', silentLog, AbortSignal.abort(new Error('the local host is stopping')));
    expect(outcome).toMatchObject({ status: 'aborted', reason: 'the local host is stopping' });
  });
});

describe('target messages', () => {
  const base = {
    desired: { kind: 'unknown' as const, desired: -1 as const, panic: undefined },
    load: { note: 'no new push' },
    wake: { kind: 'idle' as const },
    dryRun: false,
    probe: undefined,
    trigger: 'timer',
  };

  it('an activating target does not say "activating" twice', () => {
    const d = describeTargetDecision({ ...base, plan: { kind: 'hold' as const, requeueAfterMs: [], offerAsyncProbe: false, reason: 'activating' as const }, write: { kind: 'none' } });
    expect(d.decision).toBe('activating');
    expect(`${d.decision} — ${d.reason}`).not.toMatch(/activating — activating/);
  });

  it('marking a target inactive says what the rule checked: no load now, active longer than the stable window', () => {
    const d = describeTargetDecision({ ...base, plan: { kind: 'report' as const, scale: 0, requeueAfterMs: [], offerAsyncProbe: false, reason: 'stable-window-elapsed' as const }, write: { kind: 'unchanged', current: 1 } });
    expect(d.decision).toBe('marked inactive');
    expect(d.reason).toMatch(/^no load now, and active for longer than the stable window/);
    expect(d.reason).not.toMatch(/idle for the whole stable window/);
  });
});
