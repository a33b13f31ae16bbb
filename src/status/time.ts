/** ISO time for the status view; null for a time that is not known. */
export const iso = (ms: number | undefined | null): string | null => (ms === undefined || ms === null ? null : new Date(ms).toISOString());
