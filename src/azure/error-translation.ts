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
  /**
   * The request failed after the resource answered (a later page of a listing): a 404 then is
   * not "the resource does not exist" but a failed request, with ARM's code and message.
   */
  afterFirstPage?: boolean;
  /** ARM's error body as received, when the SDK's error lost it. */
  errorBody?: string;
  /** Which request of a listing failed, `page 2 (/subscriptions/…/virtualMachines)`, said before the message. */
  where?: string;
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
  const { statusCode, code, message } = httpFieldsOf(error, context.errorBody);
  switch (statusCode) {
    case 404:
      if (context.afterFirstPage) return new ArmRequestError(operation, statusCode, code, `${context.where ?? 'a later page'} of ${resource} answered 404${code ? ` (${code})` : ''}: ${message}`, options);
      return new ArmNotFoundError(operation, resource, { ...options, code, armMessage: message });
    case 412:
      return new ArmPreconditionFailedError(operation, resource, context.etag ?? '(none)', options);
    case 409:
      return new ArmConflictError(operation, resource, code, options);
    default:
      return new ArmRequestError(operation, statusCode, code, context.where ? `${context.where}: ${message}` : message, options);
  }
}

function httpFieldsOf(error: unknown, errorBody: string | undefined): { statusCode: number | undefined; code: string | undefined; message: string } {
  if (typeof error !== 'object' || error === null) {
    return { statusCode: undefined, code: undefined, message: String(error) };
  }
  const e = error as { statusCode?: unknown; code?: unknown; message?: unknown };
  return {
    statusCode: typeof e.statusCode === 'number' ? e.statusCode : undefined,
    code: typeof e.code === 'string' ? e.code : undefined,
    message: armMessageOf(error, errorBody) ?? (typeof e.message === 'string' ? e.message : String(error)),
  };
}

/**
 * ARM's own `error.message` from the response body: the SDK's pager replaces it with "Pagination
 * failed with unexpected statusCode 404", which names neither the cause nor the resource.
 */
function armMessageOf(error: object, errorBody: string | undefined): string | undefined {
  const e = error as { details?: { error?: { message?: unknown } }; response?: { bodyAsText?: unknown } };
  const fromDetails = e.details?.error?.message;
  if (typeof fromDetails === 'string') return fromDetails;
  const body = errorBody ?? e.response?.bodyAsText;
  if (typeof body !== 'string' || body.length > 64 * 1024) return undefined;
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}

/** ARM's `error.code` in an error answer's body, when it has one. */
export function armErrorCodeOf(text: string): string | undefined {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
