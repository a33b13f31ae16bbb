/** How long an object's lease runs between renewals (see state/leases.ts: short, kept by a heartbeat). */
import { LEASE_TTL_MS } from '../state/leases.js';
import type { ReconcileContext } from './types.js';

export { LEASE_TTL_MS };

/**
 * The lease as a pass's writes check it: renewed only once less than half its time is left. A
 * lease is only taken over once it expires, so while more than half is left nobody else can
 * hold it and the renewal (a conditional write) buys nothing; a pass renews at most once.
 */
export function renewingPastHalf(lease: ReconcileContext['lease']): ReconcileContext['lease'] {
  return {
    check: () => (lease.remainingMs() > LEASE_TTL_MS / 2 ? Promise.resolve() : lease.check()),
    remainingMs: () => lease.remainingMs(),
  };
}
