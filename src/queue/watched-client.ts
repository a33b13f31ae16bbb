/**
 * The stall watch (src/state/stall-watch.ts) for queue calls. The Queue SDK takes no pipeline
 * policy of ours (its StoragePipelineOptions offer retries, a proxy and an HTTP client, and it
 * builds its own pipeline from them), so the client is wrapped instead: each of its methods that
 * returns a promise is timed as one call, all its tries included, as the Tables policy times a
 * table call. What the call returns or throws is untouched.
 */
import type { QueueClient } from '@azure/storage-queue';
import { errorMessage } from '../log.js';
import type { StallWatch } from '../state/stall-watch.js';

export function stallWatchedQueue(client: QueueClient, watch: StallWatch, resource: string): QueueClient {
  return new Proxy(client, {
    get(target, property) {
      // Read on the client itself: its getters and methods may use private state the proxy lacks.
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        // On the client itself, so its own calls to its methods (createIfNotExists → create) count once.
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        const ended = watch.begin(resource);
        return result.then(
          (answer: unknown) => {
            ended({ answered: true });
            return answer;
          },
          (err: unknown) => {
            ended({ answered: (err as { response?: unknown }).response !== undefined, error: errorMessage(err) });
            throw err;
          },
        );
      };
    },
  });
}
