/** The refresh decision, as a table: plain data in, serve | list | serve stale out. */
import { describe, expect, it } from 'vitest';
import { planRefresh, type PlanMeta, type RefreshPlan } from '../../src/cache/refresh-plan.js';
import type { CachedInstance } from '../../src/cache/instance.js';
import { packInstances, unpackInstances, packRowKey, PackMismatchError } from '../../src/cache/pack.js';

const NOW = 1_000_000_000;
const PERIOD = 300_000;
const vm = (i: number, state: CachedInstance['state'] = 'Running'): CachedInstance => ({ id: `azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/${i}`, name: `vmss_${i}`, powerState: 'PowerState/running', state, errorInfo: null });
const three = [vm(0), vm(1), vm(2)];
const fresh: PlanMeta = { lastRefresh: NOW - 1_000, packs: 1 };

describe('planRefresh', () => {
  const cases: { name: string; meta: PlanMeta | undefined; stored?: CachedInstance[]; capacity?: number; force?: boolean; want: RefreshPlan }[] = [
    { name: 'never listed', meta: undefined, want: { kind: 'list', why: 'never listed' } },
    { name: 'fresh, no scale set read', meta: fresh, want: { kind: 'serve' } },
    { name: 'fresh, capacity as cached', meta: fresh, capacity: 3, want: { kind: 'serve' } },
    { name: 'fresh, capacity drifted', meta: fresh, capacity: 4, want: { kind: 'list', why: 'capacity drift' } },
    { name: 'fresh, capacity drifted while ARM throttles', meta: { ...fresh, throttledUntil: NOW + 1 }, capacity: 4, want: { kind: 'serve' } },
    { name: 'throttling over', meta: { ...fresh, throttledUntil: NOW }, capacity: 4, want: { kind: 'list', why: 'capacity drift' } },
    { name: 'a VM being deleted is not counted', meta: fresh, stored: [vm(0), vm(1), vm(2, 'Deleting')], capacity: 2, want: { kind: 'serve' } },
    { name: 'unparseable VMs are counted', meta: { ...fresh, unparseable: 1 }, capacity: 4, want: { kind: 'serve' } },
    { name: 'expired at the boundary', meta: { lastRefresh: NOW - PERIOD, packs: 1 }, want: { kind: 'list', why: 'expired' } },
    { name: 'one ms before the boundary', meta: { lastRefresh: NOW - PERIOD + 1, packs: 1 }, want: { kind: 'serve' } },
    { name: 'expired, claimed by another', meta: { lastRefresh: NOW - PERIOD, packs: 1, claimedBy: 'x', claimUntil: NOW + 1 }, want: { kind: 'serve-stale', why: 'another invocation is listing' } },
    { name: 'expired, a claim that ran out', meta: { lastRefresh: NOW - PERIOD, packs: 1, claimedBy: 'x', claimUntil: NOW }, want: { kind: 'list', why: 'expired' } },
    { name: 'fresh but claimed: serve (nothing due)', meta: { ...fresh, claimedBy: 'x', claimUntil: NOW + 1 }, want: { kind: 'serve' } },
    { name: 'forced', meta: fresh, force: true, want: { kind: 'list', why: 'forced' } },
    { name: 'forced while ARM throttles', meta: { ...fresh, throttledUntil: NOW + 1 }, force: true, want: { kind: 'serve' } },
    { name: 'the old one-row-per-VM format', meta: { lastRefresh: NOW - 1_000 }, want: { kind: 'list', why: 'old format' } },
  ];
  it.each(cases)('$name', ({ meta, stored, capacity, force, want }) => {
    expect(planRefresh(meta, stored ?? three, capacity === undefined ? undefined : { capacity }, NOW, { periodMs: PERIOD, jitterSec: 0, force })).toEqual(want);
  });
});

describe('packed instances', () => {
  it('round-trip every field of the record, including ones this module never heard of', () => {
    // i21's placement fields, and one no module has yet (a field added later needs no change here).
    const withExtras = three.map((i, n) => ({ ...i, provisioningState: 'Succeeded', zone: String(n + 1), timeCreated: 1_764_547_200_000 + n, protectFromScaleIn: n === 0, notYetInvented: { nested: [n] } }) as CachedInstance);
    const rows = packInstances(withExtras, 7).map((props, i) => ({ rowKey: packRowKey(i), props }));
    expect(unpackInstances(rows, 7, rows.length)).toEqual(withExtras);
  });

  it('keep 1,000 VMs in one row, and cut larger lists under the 64 KiB property and 1 MiB entity limits', () => {
    const thousand = Array.from({ length: 1_000 }, (_, i) => vm(i));
    expect(packInstances(thousand, 1)).toHaveLength(1);
    const big = Array.from({ length: 5_000 }, (_, i) => ({ ...vm(i), errorInfo: { errorClass: 'Other' as const, errorCode: 'X', errorMessage: 'é'.repeat(200) } }));
    const rows = packInstances(big, 2);
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) {
      const strings = Object.values(row).filter((v): v is string => typeof v === 'string');
      expect(strings.length).toBeLessThanOrEqual(252);
      for (const v of strings) expect(v.length * 2).toBeLessThanOrEqual(64 * 1024);
      expect(strings.reduce((n, v) => n + v.length * 2, 0)).toBeLessThan(1024 * 1024 - 8 * 1024);
    }
    expect(unpackInstances(rows.map((props, i) => ({ rowKey: packRowKey(i), props })).reverse(), 2, rows.length)).toEqual(big);
  });

  it('refuse rows of two different writes, or a row missing', () => {
    const rows = packInstances(three, 1).map((props, i) => ({ rowKey: packRowKey(i), props }));
    expect(() => unpackInstances(rows, 2, 1)).toThrow(PackMismatchError);
    expect(() => unpackInstances(rows, 1, 2)).toThrow(PackMismatchError);
    expect(packInstances([], 3)).toEqual([{ packId: 3, c0: '[]' }]);
  });
});
