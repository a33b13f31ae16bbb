/**
 * The closed set of errors the ARM adapter throws. Core code tells them apart with `instanceof`,
 * never by SDK status codes or `error.name`; the SDK error is kept as `cause`. ARM's 429 is the
 * shared `RateLimitedError` (source 'arm', src/errors/rate-limited.ts).
 */
export { RateLimitedError } from '../errors/rate-limited.js';

/** 404: the scale set (or its resource group) does not exist. ARM's own code and message are kept. */
export class ArmNotFoundError extends Error {
  override name = 'ArmNotFoundError';
  constructor(
    readonly operation: string,
    readonly resource: string,
    options?: ErrorOptions & { code?: string; armMessage?: string },
  ) {
    const detail = options?.code ? ` (${options.code}${options.armMessage ? `: ${options.armMessage}` : ''})` : '';
    super(`${operation}: ${resource} not found${detail}`, options);
    this.code = options?.code;
  }
  readonly code: string | undefined;
}

/** 412: the If-Match ETag is stale; someone else changed the resource. Re-read and decide again. */
export class ArmPreconditionFailedError extends Error {
  override name = 'ArmPreconditionFailedError';
  constructor(
    readonly operation: string,
    readonly resource: string,
    readonly etag: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${resource} changed since ETag ${etag} was read`, options);
  }
}

/** 409: ARM refuses because of the resource's current state (e.g. another operation runs). */
export class ArmConflictError extends Error {
  override name = 'ArmConflictError';
  constructor(
    readonly operation: string,
    readonly resource: string,
    readonly code: string | undefined,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${resource} conflict${code ? ` (${code})` : ''}`, options);
  }
}

/** A long-running operation that ARM reports as failed or canceled. */
export class ArmOperationFailedError extends Error {
  override name = 'ArmOperationFailedError';
  constructor(
    readonly operation: string,
    readonly resource: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: operation on ${resource} failed: ${detail}`, options);
  }
}

/** Any other failure talking to ARM (other status codes, network, TLS). */
export class ArmRequestError extends Error {
  override name = 'ArmRequestError';
  constructor(
    readonly operation: string,
    /** HTTP status, when ARM answered; `undefined` for network and TLS failures. */
    readonly statusCode: number | undefined,
    readonly code: string | undefined,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${message}`, options);
  }
}

/** A credential configuration that must not be used (e.g. a static token for a remote endpoint). */
export class CredentialConfigError extends Error {
  override name = 'CredentialConfigError';
  constructor(message: string) {
    super(message);
  }
}
