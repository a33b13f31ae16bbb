/** SDK and HTTP errors → the domain errors of `errors.ts`, at the adapter's edge. */
import {
  ArmRequestError,
  ConflictError,
  NotFoundError,
  OperationFailedError,
  PreconditionFailedError,
  ThrottledError,
} from './errors.js';
import { throttleOf } from './throttle.js';

export interface ErrorContext {
  operation: string;
  resource: string;
  /** The If-Match ETag sent, for a 412. */
  etag?: string;
}

const DOMAIN_ERRORS = [
  ThrottledError,
  NotFoundError,
  PreconditionFailedError,
  ConflictError,
  OperationFailedError,
  ArmRequestError,
];

export function translateArmError(error: unknown, context: ErrorContext, now: number): Error {
  if (DOMAIN_ERRORS.some((type) => error instanceof type)) return error as Error;
  const { operation, resource } = context;
  const options = { cause: error };
  const throttle = throttleOf(error, now);
  if (throttle.throttled) return new ThrottledError(operation, throttle.retryAfterMs, options);
  const { statusCode, code, message } = httpFieldsOf(error);
  switch (statusCode) {
    case 404:
      return new NotFoundError(operation, resource, options);
    case 412:
      return new PreconditionFailedError(operation, resource, context.etag ?? '(none)', options);
    case 409:
      return new ConflictError(operation, resource, code, options);
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
