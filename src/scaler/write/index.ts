/**
 * Stage 7, write: the only part of a target's decision that does I/O. The executor of a plan
 * (execute-target.ts: the synchronous probe, the fenced write, the wake's watch, readiness-watch.ts),
 * the three steps plan → execute → settle as one (scale-step.ts), and one reconcile of a target
 * (reconcile-target.ts) with what it is handed (target-pass-deps.ts).
 */
export {};
