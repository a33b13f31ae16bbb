import { describe, expect, it } from 'vitest';
import type { RateLimitRemaining } from '../../src/azure/scale-set-api.js';
import { NO_SLOWDOWN, policyWindowMs, slowdownFromRateLimit } from '../../src/cache/refresh-slowdown.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const budget = (overrides: Partial<RateLimitRemaining> = {}): RateLimitRemaining => ({
  subscriptionReads: 11_999,
  subscriptionWrites: undefined,
  resource: [{ policy: 'Microsoft.Compute/HighCostGetVMScaleSet3Min', remaining: 107 }],
  observedAt: NOW - 1_000,
  ...overrides,
});

describe('slowing down before ARM refuses', () => {
  it.each([
    { name: 'plenty of budget: no slowdown', b: budget(), want: { periodMultiplier: 1, minDelayMs: 0 } },
    { name: 'nothing observed yet: no slowdown', b: null, want: { periodMultiplier: 1, minDelayMs: 0 } },
    {
      name: 'a compute policy with 10 left: double the period',
      b: budget({ resource: [{ policy: 'Microsoft.Compute/HighCostGetVMScaleSet3Min', remaining: 10 }] }),
      want: { periodMultiplier: 2, minDelayMs: 0 },
    },
    {
      name: 'a compute policy with 11 left: no slowdown',
      b: budget({ resource: [{ policy: 'Microsoft.Compute/HighCostGetVMScaleSet3Min', remaining: 11 }] }),
      want: { periodMultiplier: 1, minDelayMs: 0 },
    },
    {
      name: 'a 3-minute policy with 2 left: four times the period and wait out its window',
      b: budget({ resource: [{ policy: 'Microsoft.Compute/HighCostGetVMScaleSet3Min', remaining: 2 }] }),
      want: { periodMultiplier: 4, minDelayMs: 180_000 },
    },
    {
      name: 'the worst of several policies decides',
      b: budget({
        resource: [
          { policy: 'Microsoft.Compute/GetVMScaleSet3Min', remaining: 5 },
          { policy: 'Microsoft.Compute/GetVMScaleSet30Min', remaining: 0 },
        ],
      }),
      want: { periodMultiplier: 4, minDelayMs: 1_800_000 },
    },
    {
      name: 'a policy without a window in its name waits 3 minutes when critical',
      b: budget({ resource: [{ policy: 'Microsoft.Compute/Other', remaining: 1 }] }),
      want: { periodMultiplier: 4, minDelayMs: 180_000 },
    },
    { name: 'subscription reads at 100: double the period', b: budget({ subscriptionReads: 100 }), want: { periodMultiplier: 2, minDelayMs: 0 } },
    { name: 'subscription reads at 20: four times, at least a minute', b: budget({ subscriptionReads: 20 }), want: { periodMultiplier: 4, minDelayMs: 60_000 } },
    {
      name: 'an observation older than 5 minutes is ignored',
      b: budget({ subscriptionReads: 0, observedAt: NOW - 300_001 }),
      want: { periodMultiplier: 1, minDelayMs: 0 },
    },
  ])('$name', ({ b, want }) => {
    const slowdown = slowdownFromRateLimit(b, NOW);
    expect({ periodMultiplier: slowdown.periodMultiplier, minDelayMs: slowdown.minDelayMs }).toEqual(want);
    expect(slowdown.reason === null).toBe(want.periodMultiplier === 1);
  });

  it('names the budget that caused it', () => {
    expect(slowdownFromRateLimit(budget({ subscriptionReads: 7 }), NOW).reason).toBe('subscription has 7 reads left');
    expect(slowdownFromRateLimit(null, NOW)).toBe(NO_SLOWDOWN);
  });

  it.each([
    { policy: 'Microsoft.Compute/HighCostGetVMScaleSet3Min', want: 180_000 },
    { policy: 'Microsoft.Compute/GetVMScaleSet30Min', want: 1_800_000 },
    { policy: 'Microsoft.Compute/PutVMScaleSet', want: undefined },
  ])('the window of $policy is $want ms', ({ policy, want }) => {
    expect(policyWindowMs(policy)).toBe(want);
  });
});
