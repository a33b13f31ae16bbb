/**
 * ARM's remaining request budgets, as it reports them on every response:
 * `x-ms-ratelimit-remaining-subscription-reads: 11999` and
 * `x-ms-ratelimit-remaining-resource: Microsoft.Compute/HighCostGetVMScaleSet3Min;107,Microsoft.Compute/HighCostGetVMScaleSet30Min;527`.
 */
import type { RateLimitRemaining } from './scale-set-api.js';

export interface HeaderSource {
  get(name: string): string | undefined;
}

/** The budgets in a response's headers; `null` when it carried none. Malformed parts are dropped. */
export function rateLimitFromHeaders(headers: HeaderSource, observedAt: number): RateLimitRemaining | null {
  const subscriptionReads = count(headers.get('x-ms-ratelimit-remaining-subscription-reads'));
  const subscriptionWrites = count(headers.get('x-ms-ratelimit-remaining-subscription-writes'));
  const resource = parseResourceBudgets(headers.get('x-ms-ratelimit-remaining-resource'));
  if (subscriptionReads === undefined && subscriptionWrites === undefined && resource.length === 0) {
    return null;
  }
  return { subscriptionReads, subscriptionWrites, resource, observedAt };
}

export function parseResourceBudgets(value: string | undefined): RateLimitRemaining['resource'] {
  if (!value) return [];
  const budgets: RateLimitRemaining['resource'] = [];
  for (const part of value.split(',')) {
    const [policy, left] = part.trim().split(';');
    const remaining = count(left);
    if (policy && remaining !== undefined) budgets.push({ policy, remaining });
  }
  return budgets;
}

function count(value: string | undefined): number | undefined {
  const text = value?.trim();
  return text && /^\d+$/.test(text) ? Number(text) : undefined;
}
