/** Storage outcomes the rest of Drover branches on, translated from RestError status codes. */

export function statusOf(err: unknown): number | undefined {
  if (err && typeof err === 'object' && 'statusCode' in err && typeof err.statusCode === 'number') return err.statusCode;
  return undefined;
}

export const isNotFound = (err: unknown) => statusOf(err) === 404;
export const isAlreadyExists = (err: unknown) => statusOf(err) === 409;
export const isPreconditionFailed = (err: unknown) => statusOf(err) === 412;

/** A read-modify-write lost to concurrent writers more times than it may retry. */
export class ContentionError extends Error {
  override name = 'ContentionError';
  constructor(readonly what: string, readonly attempts: number) {
    super(`${what}: still contended after ${attempts} attempts`);
  }
}
