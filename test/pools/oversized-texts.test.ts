// Issue 22: a VM whose custom script extension reports a 40 KiB message made every pass of its
// pool fail with PropertyValueTooLarge on the instances write (nothing adopted, nothing deleted,
// ARM re-listed every pass), and a 200 KiB API server error did the same to a target's record.
// Stored texts are capped at 1 KiB with a marker, so the rows fit and the pool goes on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_STORED_TEXT_BYTES } from '../../src/limits.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readInventory, toInventoryRow } from '../../src/pool/inventory.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { poolStatus } from '../../src/status/pool-status.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { armWorld, type ArmWorld } from '../support/arm.js';
import { startTargetWorld, WEB, webTarget, type TargetWorld } from '../targets/support.js';

let world: ArmWorld;
let targets: TargetWorld | undefined;
beforeAll(async () => {
  world = await armWorld();
});
afterAll(async () => {
  await Promise.all([world.sim.close(), targets?.close()]);
});

const RG = 'rg-texts';
const pass = (rt: Runtime, name: string) => reconcileObject(rt, { kind: 'pool', name }, { reason: 'test' }, { log: silentLog });
const settle = () => new Promise((r) => setTimeout(r, 120));
const bytes = (text: string | null | undefined) => Buffer.byteLength(text ?? '');

describe('a VM whose extension message is 40 KiB', () => {
  it('is deleted (replaced after the backoff), its neighbours adopted, and its message stored capped with a marker', async () => {
    const message = `script failed: ${'x'.repeat(40 * 1024)}`;
    const broken = { provisioningState: 'Succeeded', powerState: 'PowerState/running', extensions: [{ name: 'vmssCSE', statuses: [{ level: 'Error' as const, message }] }] };
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'chatty', capacity: 0 });
    scaleSet.failNextCreations(1, broken);
    const rt = await world.runtime({
      pools: [{ name: 'chatty', scaleSet: { resourceGroup: RG, name: 'chatty' }, maxCount: 3, chunkSize: 3, creationRate: '0s,1', reconcileRate: '0s,1', enableFastDeleteOnFailedProvisioning: true, enableDetailedCSEMessage: true }],
    });

    await pass(rt, 'chatty');
    await settle();
    const second = await pass(rt, 'chatty');
    expect(second.status === 'done' && second.decision.decision).toBe('fast-deleted 1');
    const status = await poolStatus(rt, rt.config.pools[0]!);
    expect(status.cache?.lastError).toBeNull();
    const stored = status.instances.find((i) => i.errorInfo !== null)?.errorInfo?.errorMessage;
    expect(stored).toMatch(/^\S+: \[script failed: x+… \[truncated \d{2},\d{3} bytes\]$/);
    expect(bytes(stored)).toBeLessThanOrEqual(MAX_STORED_TEXT_BYTES);
    const adopted = (await readInventory(rt.table('machines'), 'chatty')).rows.map(toInventoryRow);
    expect(adopted.filter((r) => r.providerStatus === 'Running')).toHaveLength(2);

    await settle();
    expect(scaleSet.vms()).toHaveLength(2);
    const third = await pass(rt, 'chatty');
    expect(third.status === 'done' && third.decision.reason).toMatch(/creations backed off until/);
  }, 30_000);
});

describe('a target whose API server answers a 200 KiB error', () => {
  it('records the error capped, and the next pass goes on', async () => {
    targets = await startTargetWorld((activator) => [webTarget(activator)]);
    targets.kube.add(WEB, { replicas: 2 });
    for (const op of ['get', 'getScale'] as const) targets.kube.failNext(op, 500, `etcd said: ${'y'.repeat(200 * 1024)}`);
    await reconcileObject(targets.rt, { kind: 'target', name: 'web' }, { reason: 'test' }, { log: silentLog });
    const record = await readTargetRecord(targets.rt.table('targets'), 'web');
    expect(record?.lastError).toMatch(/etcd said: y+… \[truncated 20\d,\d{3} bytes\]$/);
    expect(bytes(record?.lastError)).toBeLessThanOrEqual(MAX_STORED_TEXT_BYTES);
    const decisions = await targets.rt.decisions.recent(Date.now(), 5);
    expect(decisions.every((d) => bytes(d.reason) <= MAX_STORED_TEXT_BYTES && bytes(d.error) <= MAX_STORED_TEXT_BYTES)).toBe(true);
    expect(decisions.some((d) => d.error?.includes('[truncated'))).toBe(true);
  }, 30_000);
});
