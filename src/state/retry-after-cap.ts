/**
 * The Tables SDK sleeps on a 429/503's Retry-After (or `retry-after-ms`) by itself, for as long
 * as the server says. A storage call must end within seconds (storage.ts), so this policy, run
 * on every try before the SDK's retry policy sees the answer, shortens any such header to
 * `maxMs`: a year's Retry-After becomes one more quick try, and then the call fails and the next
 * pass tries again.
 */
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import { parseRetryAfter } from '../azure/throttle.js';

export function retryAfterCapPolicy(maxMs: number, now: () => number = Date.now): PipelinePolicy {
  return {
    name: 'droverRetryAfterCap',
    async sendRequest(request, next) {
      const response = await next(request);
      for (const name of ['retry-after-ms', 'x-ms-retry-after-ms']) {
        const value = response.headers.get(name);
        if (value !== undefined && !(Number(value) <= maxMs)) response.headers.set(name, String(maxMs));
      }
      // Rewritten as whole seconds unless it already is a short enough one: the SDK also reads dates Drover's parser does not.
      const retryAfter = response.headers.get('retry-after');
      if (retryAfter !== undefined) {
        const seconds = Math.ceil(Math.min(parseRetryAfter(retryAfter, now()), maxMs) / 1000);
        if (retryAfter.trim() !== String(seconds)) response.headers.set('retry-after', String(seconds));
      }
      return response;
    },
  };
}
