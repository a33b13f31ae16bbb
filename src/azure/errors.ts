/**
 * The closed set of errors the ARM adapter throws. Core code switches on these, never on SDK
 * status codes; the SDK error is kept as `cause`.
 */

export class ThrottledError extends Error {
  constructor(
    readonly operation: string,
    /** From Retry-After; 0 when ARM gave none (or nothing parseable). */
    readonly retryAfterMs: number,
    options?: ErrorOptions,
  ) {
    super(`ARM throttled ${operation}; retry after ${Math.ceil(retryAfterMs / 1000)} s`, options);
    this.name = 'ThrottledError';
  }
}

export class NotFoundError extends Error {
  constructor(
    readonly operation: string,
    readonly resource: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${resource} not found`, options);
    this.name = 'NotFoundError';
  }
}

/** 412: the If-Match ETag is stale; someone else changed the resource. Re-read and decide again. */
export class PreconditionFailedError extends Error {
  constructor(
    readonly operation: string,
    readonly resource: string,
    readonly etag: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${resource} changed since ETag ${etag} was read`, options);
    this.name = 'PreconditionFailedError';
  }
}

/** 409: ARM refuses because of the resource's current state (e.g. another operation runs). */
export class ConflictError extends Error {
  constructor(
    readonly operation: string,
    readonly resource: string,
    readonly code: string | undefined,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${resource} conflict${code ? ` (${code})` : ''}`, options);
    this.name = 'ConflictError';
  }
}

/** A long-running operation that ARM reports as failed or canceled. */
export class OperationFailedError extends Error {
  constructor(
    readonly operation: string,
    readonly resource: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: operation on ${resource} failed: ${detail}`, options);
    this.name = 'OperationFailedError';
  }
}

/** Any other failure talking to ARM (other status codes, network, TLS). */
export class ArmRequestError extends Error {
  constructor(
    readonly operation: string,
    readonly statusCode: number | undefined,
    readonly code: string | undefined,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${message}`, options);
    this.name = 'ArmRequestError';
  }
}

/** A credential configuration that must not be used (e.g. a static token for a remote endpoint). */
export class CredentialConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialConfigError';
  }
}

export const isThrottledError = (e: unknown): e is ThrottledError => e instanceof ThrottledError;
export const isNotFoundError = (e: unknown): e is NotFoundError => e instanceof NotFoundError;
export const isPreconditionFailedError = (e: unknown): e is PreconditionFailedError =>
  e instanceof PreconditionFailedError;
export const isConflictError = (e: unknown): e is ConflictError => e instanceof ConflictError;
export const isOperationFailedError = (e: unknown): e is OperationFailedError =>
  e instanceof OperationFailedError;
export const isArmRequestError = (e: unknown): e is ArmRequestError => e instanceof ArmRequestError;
export const isCredentialConfigError = (e: unknown): e is CredentialConfigError =>
  e instanceof CredentialConfigError;
