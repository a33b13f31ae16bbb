import { describe, expect, it } from 'vitest';
import { decodeMessage, encodeMessage, probeMessageSchema, reconcileMessageSchema } from '../../src/queue/messages.js';

describe('reconcile messages', () => {
  it.each([
    { name: 'an object the host parsed', raw: { kind: 'target', name: 'web', reason: 'forced' } },
    { name: 'a JSON string', raw: '{"kind":"pool","name":"workers","reason":"requeue"}' },
    { name: 'base64 of JSON', raw: encodeMessage({ kind: 'target', name: 'web', reason: 'x', load: 25 }) },
    { name: 'a buffer', raw: Buffer.from('{"kind":"pool","name":"p"}') },
  ])('accepts $name', ({ raw }) => {
    expect(decodeMessage(reconcileMessageSchema, raw).ok).toBe(true);
  });

  it.each([
    { name: 'not JSON', raw: 'hello world', why: /not JSON/ },
    { name: 'an unknown kind', raw: { kind: 'cluster', name: 'x' }, why: /kind: expected "target" or "pool"/ },
    { name: 'a missing name', raw: { kind: 'pool' }, why: /name: expected a string/ },
    { name: 'a URL smuggled in', raw: { kind: 'target', name: 'web', probeUrl: 'http://evil' }, why: /unknown field\(s\) "probeUrl"/ },
    { name: 'a negative load', raw: { kind: 'target', name: 'web', load: -1 }, why: /load: expected a number ≥ 0/ },
    { name: 'an empty name', raw: { kind: 'target', name: '' }, why: /name: must not be empty/ },
  ])('rejects $name, saying why', ({ raw, why }) => {
    const d = decodeMessage(reconcileMessageSchema, raw);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.reason).toMatch(why);
  });
});

describe('probe messages', () => {
  it('accepts a well-formed attempt and rejects a fractional one', () => {
    expect(decodeMessage(probeMessageSchema, { target: 'web', attempt: 2, deadline: 1_800_000_000_000 }).ok).toBe(true);
    const bad = decodeMessage(probeMessageSchema, { target: 'web', attempt: 1.5, deadline: 1 });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.reason).toMatch(/attempt: expected a whole number/);
  });
});
