/** Which inventory machines whose VMs ARM no longer lists are retired, and which trip the switch. */
import { describe, expect, it } from 'vitest';
import { retirements } from '../../src/pool/churn.js';
import type { CachedInstance } from '../../src/cache/instance.js';
import type { Row } from '../../src/state/entity-table.js';
import type { MachineProps } from '../../src/pool/inventory.js';

const vm = (id: string, state: CachedInstance['state'] = 'Running'): CachedInstance => ({ id, name: id, powerState: 'PowerState/running', state, errorInfo: null });
const row = (id: string, providerStatus = 'Running'): Row<MachineProps> => ({ partitionKey: 'p', rowKey: id, etag: `e-${id}`, props: { providerStatus, createdAt: 0, updatedAt: 0 } });

describe('retirements', () => {
  it.each([
    { name: 'a VM seen Deleting and now gone is retired, even with the list short of the capacity', rows: [row('a'), row('b')], listed: [vm('b')], previous: [vm('a', 'Deleting'), vm('b')], capacity: 2, want: ['a'], why: /deleted by Azure/ },
    { name: 'a row the cache marked Missing is retired once its VM is gone', rows: [row('a', 'Missing')], listed: [], previous: [], capacity: 1, want: ['a'], why: /deleted by Azure/ },
    { name: 'a VM gone with the capacity lowered is retired (the list is complete)', rows: [row('a'), row('b')], listed: [vm('b')], previous: [vm('a'), vm('b')], capacity: 1, want: ['a'], why: /as many VMs as the capacity/ },
    { name: 'a VM the capacity still counts is kept: the list is incomplete, the switch decides', rows: [row('a'), row('b')], listed: [vm('b')], previous: [vm('a'), vm('b')], capacity: 2, want: [] },
    { name: 'a failed row whose VM is gone is retired', rows: [row('a', 'ProvisioningFailedPermanent')], listed: [], previous: [], capacity: 3, want: ['a'], why: /after it failed/ },
    { name: 'nothing is complete without a known capacity', rows: [row('a')], listed: [], previous: [], capacity: undefined, want: [] },
    // From the property test: another VM deleted while one is hidden leaves the list short of the capacity.
    { name: 'a VM deleted while another hides is not provably gone', rows: [row('a')], listed: [], previous: [vm('a')], capacity: 1, want: [] },
  ])('$name', ({ rows, listed, previous, capacity, want, why }) => {
    const got = retirements(rows, { capacity, instances: listed, previous });
    expect(got.map((r) => r.id)).toEqual(want);
    for (const r of got) {
      expect(r.etag).toBe(`e-${r.id}`);
      if (why) expect(r.why).toMatch(why);
    }
  });
});
