import { describe, expect, it } from 'vitest';
import { decideProvisioning, isRefusal, resolvePossiblyUsed } from '../../src/pool/provisioning.js';
import type { ProvisioningDecision } from '../../src/pool/provisioning.js';
import type { Availability } from '../../src/pool/machine.js';
import { INVALID_PROVIDER_ID, inventoryMachine } from '../../src/pool/machine.js';
import { K, U, machine, row } from './support/machine-fakes.js';

describe('resolvePossiblyUsed', () => {
  const inventory = new Set(['provided-machine']);

  it.each<{ name: string; id: string; availability: Availability; want: Availability }>([
    { name: 'a known used machine is returned unchanged', id: '', availability: 'KnownUsed', want: 'KnownUsed' },
    { name: 'a known unused machine is returned unchanged', id: '', availability: 'KnownUnused', want: 'KnownUnused' },
    { name: 'a possibly used machine with the invalid id is unused', id: INVALID_PROVIDER_ID, availability: 'PossiblyUsed', want: 'KnownUnused' },
    { name: 'a possibly used machine missing from the inventory is unused', id: 'unused-machine', availability: 'PossiblyUsed', want: 'KnownUnused' },
    { name: 'a possibly used machine in the inventory is used', id: 'provided-machine', availability: 'PossiblyUsed', want: 'KnownUsed' },
    { name: 'an undefined availability is returned unchanged', id: 'provided-machine', availability: 'Undefined', want: 'Undefined' },
    { name: 'the empty id is a valid id, looked up like any other', id: '', availability: 'PossiblyUsed', want: 'KnownUnused' },
  ])('$name', ({ id, availability, want }) => {
    expect(resolvePossiblyUsed({ id, availability }, inventory)).toBe(want);
  });

  it('a machine with the invalid id is unused even if the inventory somehow holds that id', () => {
    expect(resolvePossiblyUsed({ id: INVALID_PROVIDER_ID, availability: 'PossiblyUsed' }, new Set([INVALID_PROVIDER_ID]))).toBe('KnownUnused');
  });

  it('the empty id in the inventory makes a possibly used machine used', () => {
    expect(resolvePossiblyUsed({ id: '', availability: 'PossiblyUsed' }, new Set(['']))).toBe('KnownUsed');
  });
});

describe('decideProvisioning', () => {
  const limits = { maxCount: 10, chunkSize: 20 };

  it('orders the machines to bring up by id without touching its inputs', () => {
    const provider = [U('b'), U('c'), U('a')];
    const decision = decideProvisioning(provider, [], limits);
    expect(decision.kind === 'bringUp' && decision.machines.map((m) => m.id)).toEqual(['a', 'b', 'c']);
    expect(provider.map((m) => m.id)).toEqual(['b', 'c', 'a']);
  });

  it('lists both sides of a desync, each in id order, and says why in its reason', () => {
    const decision = decideProvisioning([K('x2'), K('x1'), K('x3')], [inventoryMachine(row('y2')), inventoryMachine(row('y1')), inventoryMachine(row('x3'))], limits);
    expect(decision).toMatchObject({ kind: 'safetySwitch', providerOnly: ['x1', 'x2'], inventoryOnly: ['y1', 'y2'] });
    expect(decision.reason).toMatch(/^fatal discrepancy between inventory and provider/);
  });

  it('checks availability before consistency: an undefined machine wins over a desync', () => {
    expect(decideProvisioning([K('x'), machine('z', 'Undefined')], [], limits).kind).toBe('invalidAvailability');
  });

  it('a zero chunk leaves nothing to bring up, which reads as all filtered out', () => {
    expect(decideProvisioning([U('a')], [], { maxCount: 10, chunkSize: 0 })).toEqual({
      kind: 'noCapacity',
      managed: 0,
      reason: 'No more unused machines available, or all filtered out.',
    });
  });

  it('names the limit in the reason, or says there is none', () => {
    expect(decideProvisioning([U('a')], [], limits).reason).toMatch(/^Below managed machine limit \(10\), bringing up 1 machines/);
    expect(decideProvisioning([U('a')], [], { maxCount: 0, chunkSize: 5 }).reason).toMatch(/^Below managed machine limit \(no limit\)/);
  });

  it.each<{ name: string; decision: ProvisioningDecision; want: boolean }>([
    { name: 'invalid availability is a refusal', decision: decideProvisioning([machine('z', 'Undefined')], [], limits), want: true },
    { name: 'the safety switch is a refusal', decision: decideProvisioning([K('x')], [], limits), want: true },
    { name: 'at limit is not a refusal', decision: decideProvisioning([K('x')], [inventoryMachine(row('x'))], { maxCount: 1, chunkSize: 1 }), want: false },
    { name: 'bringing up is not a refusal', decision: decideProvisioning([U('a')], [], limits), want: false },
  ])('$name', ({ decision, want }) => {
    expect(isRefusal(decision)).toBe(want);
  });
});
