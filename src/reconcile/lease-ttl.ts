/** Long enough for one object's pass; renewed on lease checks, so long passes keep it. */
export const LEASE_TTL_MS = 60_000;
