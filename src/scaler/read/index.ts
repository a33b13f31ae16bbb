/**
 * Stage 1, read (the first of the stages one target decision takes, in order): the target as a
 * decision finds it. Its settings from the configuration (target-settings.ts, with each later
 * stage's own knobs gathered in policy-settings.ts and adaptive-settings.ts), its stored record
 * and conditions, the times it holds clamped to now (future-times.ts), the names the later
 * stages give a rule that binds a decision (rule-names.ts, bound-rules.ts), and the ports its
 * scale (target-port.ts, pool-port.ts) and its row (target-store.ts) are read through; write/
 * writes through the same. Nothing here imports a later stage but the settings, which gather
 * every stage's knobs.
 */
export {};
