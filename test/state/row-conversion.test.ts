import { describe, expect, it } from 'vitest';
import { sameProps, toEntity, toRow } from '../../src/state/entity-table.js';

describe('row conversion', () => {
  it('keeps scalar properties, unescapes the keys and drops system properties and typed values', () => {
    const row = toRow({
      partitionKey: 'rg%2Fvmss',
      rowKey: '%2Fsubscriptions%2Fs%2F3',
      etag: 'W/"1"',
      timestamp: '2026-12-01T10:00:00Z',
      'odata.metadata': 'https://x/$metadata',
      name: 'vm_3',
      capacity: 0,
      healthy: false,
      seen: new Date(0),
      big: 5n,
      nothing: null,
    } as never);
    expect(row).toEqual({ partitionKey: 'rg/vmss', rowKey: '/subscriptions/s/3', etag: 'W/"1"', props: { name: 'vm_3', capacity: 0, healthy: false } });
  });

  it('escapes the keys and leaves undefined properties out of an entity', () => {
    expect(toEntity('rg/vmss', 'a#b', { name: 'x', gone: undefined, n: 1 })).toEqual({ partitionKey: 'rg%2Fvmss', rowKey: 'a%23b', name: 'x', n: 1 });
  });

  it.each([
    { name: 'equal properties', a: { x: 1, y: 'a' }, b: { y: 'a', x: 1 }, same: true },
    { name: 'an absent property and an undefined one', a: { x: 1, y: undefined }, b: { x: 1 }, same: true },
    { name: 'the same, the other way round', a: { x: 1 }, b: { x: 1, y: undefined }, same: true },
    { name: 'a changed value', a: { x: 1 }, b: { x: 2 }, same: false },
    { name: 'a property only on the left', a: { x: 1, y: 0 }, b: { x: 1 }, same: false },
    { name: 'a property only on the right', a: { x: 1 }, b: { x: 1, y: false }, same: false },
    { name: "'1' against 1", a: { x: '1' }, b: { x: 1 }, same: false },
  ])('sameProps: $name', ({ a, b, same }) => {
    expect(sameProps(a, b)).toBe(same);
  });
});
