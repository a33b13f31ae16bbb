/** How long an object's lease runs between renewals (see state/leases.ts: short, kept by a heartbeat). */
export { LEASE_TTL_MS } from '../state/leases.js';
