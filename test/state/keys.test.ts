import { describe, expect, it } from 'vitest';
import { escapeKey, unescapeKey } from '../../src/state/keys.js';

describe('key escaping', () => {
  it.each([
    ['a resource id with slashes', '/subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/3'],
    ['the forbidden characters', 'a/b\\c#d?e'],
    ['a literal percent sign and something that looks escaped', '100%2F done %'],
    ['control characters', 'tab\there\nnewline\u007f'],
    ['plain text', 'pool-workers_1.a'],
    ['unicode', 'größe/µs'],
  ])('round-trips %s', (_, raw) => {
    const escaped = escapeKey(raw);
    // eslint-disable-next-line no-control-regex
    expect(escaped).not.toMatch(/[/\\#?\u0000-\u001f\u007f-\u009f]/);
    expect(unescapeKey(escaped)).toBe(raw);
  });

  it('leaves keys without forbidden characters untouched', () => {
    expect(escapeKey('pool-workers')).toBe('pool-workers');
  });
});
