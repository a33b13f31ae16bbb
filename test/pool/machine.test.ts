import { describe, expect, it } from 'vitest';
import type { ProviderStatus } from '../../src/pool/machine.js';
import { INVALID_PROVIDER_ID, inventoryMachine, isInventoryRowFailed, isValidProviderId } from '../../src/pool/machine.js';
import { row } from './support/machine-fakes.js';

describe('provider ids', () => {
  it.each([
    { name: 'the invalid id is invalid', id: INVALID_PROVIDER_ID, want: false },
    { name: 'the empty string is valid', id: '', want: true },
    { name: 'a uuid is valid', id: '6f1c2a3e-0000-4000-8000-000000000001', want: true },
  ])('$name', ({ id, want }) => {
    expect(isValidProviderId(id)).toBe(want);
  });
});

describe('inventoryMachine', () => {
  it.each<{ name: string; status: ProviderStatus | null; failed: boolean }>([
    { name: 'a permanent provisioning failure is failed', status: 'ProvisioningFailedPermanent', failed: true },
    { name: 'a row without a status is not failed', status: null, failed: false },
    { name: 'a running machine is not failed', status: 'Running', failed: false },
    { name: 'a provisioning machine is not failed', status: 'Provisioning', failed: false },
    { name: 'a missing machine is not failed', status: 'Missing', failed: false },
    { name: 'a stopped machine is not failed', status: 'Stopped', failed: false },
    { name: 'a machine of unknown status is not failed', status: 'Unknown', failed: false },
  ])('$name', ({ status, failed }) => {
    expect(isInventoryRowFailed(row('x', status))).toBe(failed);
    expect(inventoryMachine(row('x', status))).toEqual({ id: 'x', addr: '', availability: 'KnownUsed', failed });
  });

  it.each([
    { name: 'an IPv4 address is kept', address: '10.0.0.4', want: '10.0.0.4' },
    { name: 'an IPv6 address is kept', address: 'fd00::4', want: 'fd00::4' },
    { name: 'a missing address reads as unknown', address: null, want: '' },
    { name: 'an unparseable address reads as unknown', address: 'not-an-ip', want: '' },
  ])('$name', ({ address, want }) => {
    expect(inventoryMachine({ ...row('x'), address }).addr).toBe(want);
  });
});
