/**
 * The closed set of errors the Kubernetes adapter throws, told apart with `instanceof`: a target
 * that is gone is reported (and not retried forever), a conflict may be retried on the next
 * pass, anything else carries the target's name and the original error as `cause`. The API
 * server's 429 is the shared `RateLimitedError` (source 'kubernetes').
 */
export { RateLimitedError } from '../errors/rate-limited.js';

export class TargetNotFoundError extends Error {
  override name = 'TargetNotFoundError';
  constructor(
    readonly target: string,
    options?: ErrorOptions,
  ) {
    super(`scale target ${target} not found`, options);
  }
}

/** 409: the API server refused the change because of the object's current state. */
export class TargetConflictError extends Error {
  override name = 'TargetConflictError';
  constructor(
    readonly target: string,
    options?: ErrorOptions,
  ) {
    super(`conflicting change to scale target ${target}`, options);
  }
}

export class KubernetesRequestError extends Error {
  override name = 'KubernetesRequestError';
  constructor(
    message: string,
    /** HTTP status, when the API server answered. */
    readonly statusCode: number | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
