/** SDK and HTTP errors → the domain errors of `errors.ts`, at the adapter's edge. */
import {
  ArmConflictError,
  ArmNotFoundError,
  ArmOperationFailedError,
  ArmPreconditionFailedError,
  ArmRequestError,
  RateLimitedError,
} from './errors.js';
import { throttleOf } from './throttle.js';

export interface ErrorContext {
  operation: string;
  resource: string;
  /** The If-Match ETag sent, for a 412. */
  etag?: string;
}

const DOMAIN_ERRORS = [
  RateLimitedError,
  ArmNotFoundError,
  ArmPreconditionFailedError,
  ArmConflictError,
  ArmOperationFailedError,
  ArmRequestError,
];

export function translateArmError(error: unknown, context: ErrorContext, now: number): Error {
  if (DOMAIN_ERRORS.some((type) => error instanceof type)) return error as Error;
  const { operation, resource } = context;
  const options = { cause: error };
  const throttle = throttleOf(error, now);
  if (throttle.throttled) return new RateLimitedError('arm', operation, throttle.askedMs ?? throttle.retryAfterMs, options);
  const { statusCode, code, message } = httpFieldsOf(error);
  switch (statusCode) {
    case 404:
      return new ArmNotFoundError(operation, resource, options);
    case 412:
      return new ArmPreconditionFailedError(operation, resource, context.etag ?? '(none)', options);
    case 409:
      return new ArmConflictError(operation, resource, code, options);
    default:
      return new ArmRequestError(operation, statusCode, code, message, options);
  }
}

function httpFieldsOf(error: unknown): { statusCode: number | undefined; code: string | undefined; message: string } {
  if (typeof error !== 'object' || error === null) {
    return { statusCode: undefined, code: undefined, message: String(error) };
  }
  const e = error as { statusCode?: unknown; code?: unknown; message?: unknown };
  return {
    statusCode: typeof e.statusCode === 'number' ? e.statusCode : undefined,
    code: typeof e.code === 'string' ? e.code : undefined,
    message: typeof e.message === 'string' ? e.message : String(error),
  };
}
