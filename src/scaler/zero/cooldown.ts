/**
 * KEDA's cooldown for targets whose sources are all `queue` or `push`: the queue holds the
 * work, so such a target needs no activator to wake or to sleep (the wake, at zero, is
 * src/scaler/zero/sleep.ts).
 *
 *   sleep     after `cooldown` since the last active observation, the target may go to zero,
 *             one step at a time: the rate limits bring it down, and the last write is 1 → 0
 *
 * With no active observation yet, the cooldown runs from when Drover first saw the target
 * (KEDA counts from creation; Drover takes running workloads over as they are, so it waits a
 * whole cooldown before trusting an idle queue).
 */
import { bound, type Bound, type PolicyRule } from '../read/rule-names.js';

export const DEFAULT_COOLDOWN_MS = 5 * 60_000;

export interface CooldownInput {
  replicas: number;
  current: number;
  active: boolean;
  /** When a source was last seen active (KEDA's LastActiveTime). */
  lastActiveAt: number | undefined;
  /** When Drover first saw the target: the cooldown's start until a source is first active. */
  since: number;
  cooldownMs: number;
  now: number;
}

export interface CooldownOutcome extends Bound {
  lastActiveAt: number | undefined;
}

/**
 * The sleep rule. An inactive target (no source above its threshold) goes to zero once the
 * cooldown has passed since the last active observation, and only from 1: above that the
 * decision from the stages before (the rate limits) steps it down first. Until then it keeps 1.
 */
export function applyCooldown(input: CooldownInput): CooldownOutcome {
  const { replicas, current, active, now } = input;
  const lastActiveAt = active ? now : input.lastActiveAt;
  if (current === 0 || replicas > 1 || active) return { replicas, lastActiveAt };
  const quietSince = lastActiveAt ?? input.since;
  const at = (n: number, rule?: PolicyRule): CooldownOutcome => ({ ...bound(n, n !== replicas ? rule : undefined), lastActiveAt });
  if (!(quietSince + input.cooldownMs < now)) return at(1, 'CooldownPending');
  if (current > 1) return at(1, 'StepToZero');
  return at(0, 'Inactive');
}
