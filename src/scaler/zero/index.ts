/**
 * Stage 4, scale to zero: every rule about going to zero and coming back, in one place. The
 * activator's grace period before a target may go to zero, and the synchronous probe
 * (scale-to-zero.ts); the sleep and wake of a target without an activator (sleep.ts) after its
 * cooldown (cooldown.ts); and the activation latency of each wake (activation-latency.ts).
 */
export {};
