/**
 * Slowing refreshes down before ARM starts answering 429, from the remaining budgets ARM reports
 * in `x-ms-ratelimit-remaining-*` headers. ARM does not say how large each budget is, so the
 * thresholds are absolute counts, picked so that a few more listings still fit:
 *
 * | budget                                              | low (period × 2) | critical (period × 4, and wait at least) |
 * | --------------------------------------------------- | ---------------- | ---------------------------------------- |
 * | a compute policy (`x-ms-ratelimit-remaining-resource`, e.g. `…/HighCostGetVMScaleSet3Min;7`) | ≤ 10 | ≤ 2: the policy's window (`3Min` → 3 min; 3 min when unnamed) |
 * | subscription reads (`…-subscription-reads`)        | ≤ 100            | ≤ 20: 1 min                              |
 *
 * The worst budget decides. An observation older than 5 minutes is ignored: the windows it
 * describes have moved on. Write budgets do not slow down refreshes (they are reads).
 */
import type { RateLimitRemaining } from '../azure/scale-set-api.js';

export interface Slowdown {
  periodMultiplier: number;
  minDelayMs: number;
  /** Why, for logs and the decision log; `null` when there is no slowdown. */
  reason: string | null;
}

export const NO_SLOWDOWN: Slowdown = Object.freeze({ periodMultiplier: 1, minDelayMs: 0, reason: null });

export const SLOWDOWN_THRESHOLDS = Object.freeze({
  resourceLow: 10,
  resourceCritical: 2,
  subscriptionReadsLow: 100,
  subscriptionReadsCritical: 20,
  subscriptionCriticalDelayMs: 60_000,
  defaultPolicyWindowMs: 180_000,
  maxObservationAgeMs: 300_000,
});

export function slowdownFromRateLimit(
  remaining: RateLimitRemaining | null,
  now: number,
): Slowdown {
  const t = SLOWDOWN_THRESHOLDS;
  if (!remaining || now - remaining.observedAt > t.maxObservationAgeMs) return NO_SLOWDOWN;
  const candidates: Slowdown[] = [];
  for (const { policy, remaining: left } of remaining.resource) {
    if (left <= t.resourceCritical) {
      candidates.push({
        periodMultiplier: 4,
        minDelayMs: policyWindowMs(policy) ?? t.defaultPolicyWindowMs,
        reason: `ARM budget ${policy} has ${left} requests left`,
      });
    } else if (left <= t.resourceLow) {
      candidates.push({ periodMultiplier: 2, minDelayMs: 0, reason: `ARM budget ${policy} has ${left} requests left` });
    }
  }
  const reads = remaining.subscriptionReads;
  if (reads !== undefined && reads <= t.subscriptionReadsCritical) {
    candidates.push({
      periodMultiplier: 4,
      minDelayMs: t.subscriptionCriticalDelayMs,
      reason: `subscription has ${reads} reads left`,
    });
  } else if (reads !== undefined && reads <= t.subscriptionReadsLow) {
    candidates.push({ periodMultiplier: 2, minDelayMs: 0, reason: `subscription has ${reads} reads left` });
  }
  return candidates.reduce(
    (worst, c) =>
      c.periodMultiplier > worst.periodMultiplier ||
      (c.periodMultiplier === worst.periodMultiplier && c.minDelayMs > worst.minDelayMs)
        ? c
        : worst,
    NO_SLOWDOWN,
  );
}

/** `Microsoft.Compute/GetVMScaleSet30Min` → 30 min; `undefined` when the name has no window. */
export function policyWindowMs(policy: string): number | undefined {
  const minutes = /(\d+)Min$/i.exec(policy)?.[1];
  return minutes === undefined ? undefined : Number(minutes) * 60_000;
}
