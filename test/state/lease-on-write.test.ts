// The lease a pass takes at its first write (src/state/lease-on-write.ts), on Azurite: none taken
// by a pass that does not write, one insert at the first check, refused while another holds it or
// took the object for the occurrence, renewed only past half its time, and a lost lease stopping
// the pass.
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { LeaseOnWrite, LeaseRefusedError } from '../../src/state/lease-on-write.js';
import { Leases } from '../../src/state/leases.js';
import { simulatedService } from '../../src/state/service-clock.js';
import type { Storage } from '../../src/state/storage.js';
import { freshStorage } from '../support/storage.js';

let storage: Storage;
let table: EntityTable;
let requests: string[];
beforeAll(async () => {
  storage = await freshStorage();
  table = new EntityTable(storage.table('leases'));
  requests = [];
  table.client.pipeline.addPolicy({
    name: 'countLeaseRequests',
    sendRequest: (request, next) => {
      requests.push(request.method);
      return next(request);
    },
  });
});

const TTL = 15_000;

function world() {
  const clock = new ManualClock(Date.UTC(2026, 11, 6, 10, 0, 0));
  const leases = new Leases(table, clock, simulatedService(clock));
  const onWrite = (key: string, holder: string, options: ConstructorParameters<typeof LeaseOnWrite>[5] = {}) => new LeaseOnWrite(leases, clock, key, holder, TTL, { heartbeatMs: 0, ...options });
  return { clock, leases, onWrite };
}

describe('a lease taken at the first write', () => {
  it('costs nothing when the pass writes nothing, and one insert and one release when it does', async () => {
    const { onWrite } = world();
    requests.length = 0;
    const idle = onWrite('pool/idle', 'a');
    expect(idle.remainingMs()).toBe(TTL);
    await idle.release();
    expect(requests).toEqual([]);

    const writing = onWrite('pool/writing', 'a');
    await Promise.all([writing.check(), writing.check()]);
    await writing.check();
    expect(writing.taken).toBe(true);
    await writing.release();
    // One insert for both first checks, none for the third (more than half left), the release.
    expect(requests).toEqual(['POST', 'DELETE']);
  });

  it('is refused at the first write while another holder has the object, naming it', async () => {
    const { onWrite } = world();
    const first = onWrite('target/busy', 'host-1');
    await first.check();
    const second = onWrite('target/busy', 'host-2');
    const refused = await second.check().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(LeaseRefusedError);
    expect(refused).toMatchObject({ heldBy: 'host-1', claimedFor: undefined });
    await second.release();
    await first.release();
    // Released: the next pass takes it.
    const third = onWrite('target/busy', 'host-3');
    await expect(third.check()).resolves.toBeUndefined();
    await third.release();
  });

  it('is refused for an occurrence another host already wrote the object for', async () => {
    const { clock, onWrite } = world();
    const occurrence = clock.now() + 30_000;
    const first = onWrite('pool/claimed', 'host-1:x', { claim: { occurrence, by: 'host-1' } });
    await first.check();
    await first.release();
    const late = onWrite('pool/claimed', 'host-2:y', { claim: { occurrence, by: 'host-2' } });
    await expect(late.check()).rejects.toMatchObject({ heldBy: 'host-1', claimedFor: occurrence });
    await late.release();
  });

  it('renews once less than half is left, and a lease taken over aborts the pass', async () => {
    const { clock, leases, onWrite } = world();
    const lease = onWrite('pool/renew', 'a');
    await lease.check();
    requests.length = 0;
    clock.advance(TTL / 2 + 1);
    await lease.check();
    expect(requests).toEqual(['PUT']);
    expect(lease.remainingMs()).toBe(TTL);
    // Another holder takes it once it has run out: the next check fails and the signal aborts.
    clock.advance(TTL + 1);
    expect((await leases.acquire('pool/renew', 'b', TTL)).acquired).toBe(true);
    await expect(lease.check()).rejects.toThrow(/lease on pool\/renew lost/);
    expect(lease.signal.aborted).toBe(true);
    expect(lease.remainingMs()).toBe(0);
    await lease.release();
  });

  it("follows the caller's signal before the lease is taken", async () => {
    const { onWrite } = world();
    const caller = new AbortController();
    const lease = onWrite('pool/abort', 'a', { signal: caller.signal });
    caller.abort(new Error('the pass ran out of its budget'));
    expect(lease.signal.aborted).toBe(true);
    expect(lease.remainingMs()).toBe(0);
    await lease.release();
  });
});
