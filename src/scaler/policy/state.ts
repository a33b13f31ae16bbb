/**
 * What the policy stages remember between reconciles, kept in the target's record as one
 * bounded JSON text: each source's consecutive failures, the last active observation, HPA's
 * recommendation and scale-event histories, Knative's delay window, and whether the target has
 * reached its initial scale. A text that does not read back (an older or damaged row) reads as
 * nothing remembered, which every stage treats as a first sight.
 */
import { EMPTY_BEHAVIOR_STATE, type BehaviorState } from './behavior.js';
import type { MaxEntry } from './max-window.js';

export interface PolicyState {
  failures: Readonly<Record<string, number>>;
  lastActiveAt?: number;
  behavior: BehaviorState;
  delay: readonly MaxEntry[];
  initialized: boolean;
}

export const EMPTY_POLICY_STATE: PolicyState = Object.freeze({ failures: {}, behavior: EMPTY_BEHAVIOR_STATE, delay: [], initialized: false });

/** Far under Table Storage's 64 KiB property: the histories are capped (history.ts), so this only guards a damaged row. */
export const MAX_POLICY_STATE_CHARS = 16_000;

export function encodePolicyState(state: PolicyState): string {
  return JSON.stringify(state);
}

export function decodePolicyState(text: string | undefined): PolicyState {
  if (!text || text.length > MAX_POLICY_STATE_CHARS) return EMPTY_POLICY_STATE;
  try {
    const v = JSON.parse(text) as Partial<PolicyState>;
    const behavior = v.behavior ?? EMPTY_BEHAVIOR_STATE;
    if (typeof v !== 'object' || !Array.isArray(behavior.upEvents) || !Array.isArray(behavior.downEvents) || !Array.isArray(v.delay ?? [])) return EMPTY_POLICY_STATE;
    return {
      failures: v.failures ?? {},
      ...(typeof v.lastActiveAt === 'number' ? { lastActiveAt: v.lastActiveAt } : {}),
      behavior,
      delay: v.delay ?? [],
      initialized: v.initialized === true,
    };
  } catch {
    return EMPTY_POLICY_STATE;
  }
}
