/**
 * The Kubernetes adapter's errors. Core code switches on these, never on HTTP status codes:
 * a target that is gone is reported (and not retried forever), a conflict may be retried on
 * the next pass, anything else carries the target's name and the original error as `cause`.
 */

export class TargetNotFoundError extends Error {
  constructor(
    readonly target: string,
    options?: ErrorOptions,
  ) {
    super(`scale target ${target} not found`, options);
    this.name = 'TargetNotFoundError';
  }
}

export class ConflictError extends Error {
  constructor(
    readonly target: string,
    options?: ErrorOptions,
  ) {
    super(`conflicting change to scale target ${target}`, options);
    this.name = 'ConflictError';
  }
}

export class KubernetesRequestError extends Error {
  constructor(
    message: string,
    /** HTTP status, when the API server answered. */
    readonly statusCode: number | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'KubernetesRequestError';
  }
}

export function isTargetNotFoundError(error: unknown): error is TargetNotFoundError {
  return error instanceof Error && error.name === 'TargetNotFoundError';
}

export function isConflictError(error: unknown): error is ConflictError {
  return error instanceof Error && error.name === 'ConflictError';
}

export function isKubernetesRequestError(error: unknown): error is KubernetesRequestError {
  return error instanceof Error && error.name === 'KubernetesRequestError';
}
