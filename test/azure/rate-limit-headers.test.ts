import { describe, expect, it } from 'vitest';
import { parseResourceBudgets, rateLimitFromHeaders } from '../../src/azure/rate-limit-headers.js';

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] });

describe('x-ms-ratelimit-remaining-* headers', () => {
  it('reads subscription budgets and every compute policy', () => {
    expect(
      rateLimitFromHeaders(
        headers({
          'x-ms-ratelimit-remaining-subscription-reads': '11999',
          'x-ms-ratelimit-remaining-subscription-writes': '1199',
          'x-ms-ratelimit-remaining-resource':
            'Microsoft.Compute/HighCostGetVMScaleSet3Min;107,Microsoft.Compute/HighCostGetVMScaleSet30Min;527',
        }),
        42,
      ),
    ).toEqual({
      subscriptionReads: 11999,
      subscriptionWrites: 1199,
      resource: [
        { policy: 'Microsoft.Compute/HighCostGetVMScaleSet3Min', remaining: 107 },
        { policy: 'Microsoft.Compute/HighCostGetVMScaleSet30Min', remaining: 527 },
      ],
      observedAt: 42,
    });
  });

  it('a response without them gives null', () => {
    expect(rateLimitFromHeaders(headers({ 'content-type': 'application/json' }), 42)).toBeNull();
  });

  it.each([
    { name: 'a part without count is dropped', value: 'A;1,B,C;x,D;2', want: [{ policy: 'A', remaining: 1 }, { policy: 'D', remaining: 2 }] },
    { name: 'spaces around parts are ignored', value: ' A;1 , B;0 ', want: [{ policy: 'A', remaining: 1 }, { policy: 'B', remaining: 0 }] },
    { name: 'empty gives none', value: '', want: [] },
  ])('$name', ({ value, want }) => {
    expect(parseResourceBudgets(value)).toEqual(want);
  });

  it('a non-numeric subscription count is ignored', () => {
    expect(rateLimitFromHeaders(headers({ 'x-ms-ratelimit-remaining-subscription-reads': 'lots' }), 1)).toBeNull();
  });
});
