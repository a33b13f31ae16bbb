/**
 * Stage 6, settle: what a plan's outcome leaves behind, pure. The Active condition after the
 * write (active-condition.ts) and the record patch, wake bookkeeping, follow-ups and decision
 * for the log (settle.ts).
 */
export {};
