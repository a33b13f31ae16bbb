import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeKey, unescapeKey } from '../../src/state/keys.js';

/** The regex implementations the loops replaced: the rows already in Table Storage were written by them. */
// eslint-disable-next-line no-control-regex
const regexEscape = (raw: string) => raw.replace(/[%/\\#?\u0000-\u001f\u007f-\u009f]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
const regexUnescape = (escaped: string) => escaped.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** Strings dense in the characters that matter: percent signs, hex digits and forbidden ones. */
const keyish = fc.string({
  unit: fc.oneof(
    fc.constantFrom('%', '/', '\\', '#', '?', '\t', '\u007f', '\u0085', '\u009f', '\u00a0', 'A', 'F', 'G', 'a', 'f', '0', '9', '2'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 40,
});

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

  it('round-trips any string', () => {
    fc.assert(fc.property(keyish, (raw) => unescapeKey(escapeKey(raw)) === raw));
  });

  it('escapes exactly as the regex version did, so stored keys still match', () => {
    fc.assert(fc.property(keyish, (raw) => escapeKey(raw) === regexEscape(raw)));
  });

  it('unescapes any text exactly as the regex version did, stray and lower-case escapes included', () => {
    fc.assert(fc.property(keyish, (text) => unescapeKey(text) === regexUnescape(text)));
    for (const text of ['%', '%4', '%4G', '%%41', '%2f', '%2F%2', 'x%41%']) expect(unescapeKey(text)).toBe(regexUnescape(text));
  });
});
