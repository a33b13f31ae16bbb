/**
 * Before a verb talks to Table Storage: is anyone there? The SDK retries a refused connection
 * for many seconds before it gives up, which at a terminal reads as a hang followed by a bare
 * `ECONNREFUSED`. One plain GET, bounded in time and never retried, says it at once and names
 * the endpoint. Any HTTP answer counts, a 401 or 403 included: the service is there.
 */
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { errorMessage } from '../log.js';

export const REACH_TIMEOUT_MS = 4_000;

export class StorageUnreachableError extends Error {
  override name = 'StorageUnreachableError';
}

/** Resolves when the table endpoint answers anything within `timeoutMs`, else rejects with StorageUnreachableError. */
export function checkTableStorage(endpoint: string, timeoutMs = REACH_TIMEOUT_MS): Promise<void> {
  const url = new URL(endpoint);
  const get = url.protocol === 'https:' ? httpsGet : httpGet;
  return new Promise((resolve, reject) => {
    const fail = (why: string, cause?: unknown) => reject(new StorageUnreachableError(`cannot reach Table Storage at ${endpoint}: ${why}`, { cause }));
    const req = get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      resolve();
    });
    req.on('timeout', () => {
      req.destroy();
      fail(`no answer within ${timeoutMs / 1000} s`);
    });
    req.on('error', (err: NodeJS.ErrnoException) => fail(err.code ?? errorMessage(err), err));
  });
}
