// Packs store their records' ids after the ids' common prefix (src/cache/pack.ts): the same
// records come back, whatever ids they have, and rows written before the prefix read as they are.
import { describe, expect, it } from 'vitest';
import { packedList, packJson, packRowKey, recordsOf, rowsOfList, unpackList } from '../../src/cache/pack.js';

const VMSS = 'azure:///subscriptions/s/resourcegroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/';
const rowsOf = (props: ReturnType<typeof rowsOfList>) => props.map((p, i) => ({ rowKey: packRowKey(i), props: p }));

describe('packed ids', () => {
  it.each([
    { name: 'a scale set\'s VMs: the path up to the instance id', ids: [`${VMSS}0`, `${VMSS}1`, `${VMSS}12`], prefix: VMSS },
    { name: 'one VM: its path up to its last slash', ids: [`${VMSS}7`], prefix: VMSS },
    { name: 'ids that share part of a segment: cut back to the last slash', ids: [`${VMSS}10`, `${VMSS}11`], prefix: VMSS },
    { name: 'ids with nothing in common', ids: ['a/1', 'b/2'], prefix: '' },
    { name: 'no slash at all', ids: ['x', 'xy'], prefix: '' },
    { name: 'no records', ids: [], prefix: '' },
  ])('$name', ({ ids, prefix }) => {
    const records = ids.map((id, n) => ({ id, name: `vm${n}`, state: n % 2 ? null : 'Running' }));
    const list = packedList(records, 'id');
    expect(list.idPrefix).toBe(prefix);
    expect(list.json).not.toContain(prefix === '' ? '\u0000' : prefix);
    expect(recordsOf(unpackList(rowsOf(rowsOfList(list, 3)), 3, 1), 'id')).toEqual(records);
  });

  it('a record without a string id keeps every id whole', () => {
    const records = [{ id: `${VMSS}1` }, { name: 'no id' }];
    expect(packedList(records, 'id').idPrefix).toBe('');
  });

  it('reads rows written before ids were packed (no idPrefix) as they are', () => {
    const records = [{ k: `${VMSS}1`, v: 1 }, { k: `${VMSS}2`, v: 2 }];
    const rows = packJson(JSON.stringify(records), 9).map((p, i) => ({ rowKey: packRowKey(i), props: p }));
    expect(recordsOf(unpackList(rows, 9, rows.length), 'k')).toEqual(records);
  });

  it('is several times smaller for a thousand VMs', () => {
    const records = Array.from({ length: 1_000 }, (_, n) => ({ id: `${VMSS}${n}`, name: `vmss_${n}`, state: 'Running', errorInfo: null, powerState: 'PowerState/running' }));
    expect(packedList(records, 'id').json.length).toBeLessThan(JSON.stringify(records).length * 0.6);
  });
});
