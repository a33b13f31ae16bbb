/**
 * Activation latency: for each wake from zero, the time from the reconcile that first asked
 * for replicas (the one that brought the first load sample, or a forced reconcile) to the
 * first ready replica seen afterwards. A wake that goes back to zero before a replica is ready
 * is abandoned, not measured.
 */

export interface WakeInput {
  /** When a wake still waiting for its first ready replica was asked for. */
  pendingSince: number | undefined;
  /** The target's own scale before this reconcile (spec replicas, capacity). */
  scaleBefore: number;
  /** The scale this reconcile applies (or would, were it not deferred); undefined for none. */
  applying: number | undefined;
  /**
   * Ready replicas seen after the wake was asked for. A read taken before this reconcile's
   * own wake write must not be passed: replicas still draining would pass for new ones.
   */
  observed: { ready: number; at: number } | undefined;
  now: number;
}

export type WakeOutcome =
  | { kind: 'idle' }
  | { kind: 'waking'; since: number }
  | { kind: 'woke'; since: number; readyAt: number; latencyMs: number }
  | { kind: 'abandoned'; since: number };

export function trackWake(input: WakeInput): WakeOutcome {
  const since = startsWake(input.pendingSince, input.scaleBefore, input.applying) ? input.now : input.pendingSince;
  if (since === undefined) return { kind: 'idle' };
  if (input.applying === 0) return { kind: 'abandoned', since };
  const seen = input.observed;
  if (seen && seen.ready >= 1 && seen.at >= since) return { kind: 'woke', since, readyAt: seen.at, latencyMs: seen.at - since };
  return { kind: 'waking', since };
}

/** Whether this reconcile starts a wake, i.e. must watch for readiness after its write. */
export function startsWake(pendingSince: number | undefined, scaleBefore: number, applying: number | undefined): boolean {
  return pendingSince === undefined && scaleBefore === 0 && (applying ?? 0) > 0;
}
