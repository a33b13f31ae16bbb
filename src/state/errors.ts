/**
 * The closed set of errors the storage layer (tables and queues) throws, translated from the
 * SDK's RestError at the edge, so no raw RestError leaves it. Callers tell them apart with
 * `instanceof`; the RestError is kept as `cause`.
 */

/** The part of RestError that matters here (kept structural: the SDK class is not ours). */
function statusOf(err: unknown): number | undefined {
  if (err && typeof err === 'object' && 'statusCode' in err && typeof err.statusCode === 'number') return err.statusCode;
  return undefined;
}

/** Which operation of a `$batch` the service refused (the whole batch was rolled back). */
export interface FailedOperation {
  /** Position in the batch, from 0. */
  index: number;
  kind: string;
  rowKey: string;
  status: number;
  /** The service's error code: `UpdateConditionNotSatisfied`, `EntityAlreadyExists`, … */
  code: string | undefined;
}

abstract class StorageError extends Error {
  /** Set when a batch failed: the operation that made it fail. */
  failedOperation: FailedOperation | undefined;
  constructor(
    /** What was being done: "tables/drovermachines get workers/vm-1". */
    readonly operation: string,
    readonly statusCode: number | undefined,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${detail}`, options);
  }
}

/** 404: the table, queue or row is not there. */
export class StorageNotFoundError extends StorageError {
  override name = 'StorageNotFoundError';
}

/** 409: it already exists (or the service refuses because of its current state). */
export class StorageConflictError extends StorageError {
  override name = 'StorageConflictError';
}

/** 412: the ETag is stale: someone else wrote the row first. */
export class StoragePreconditionFailedError extends StorageError {
  override name = 'StoragePreconditionFailedError';
}

/** Any other failure: other status codes, network, TLS, authentication. */
export class StorageRequestError extends StorageError {
  override name = 'StorageRequestError';
}

export type StorageFailure = StorageNotFoundError | StorageConflictError | StoragePreconditionFailedError | StorageRequestError;

/** A storage SDK error as one of the closed set; an error already translated passes through. */
export function storageError(err: unknown, operation: string): StorageFailure {
  if (err instanceof StorageError) return err as StorageFailure;
  return failureOf(statusOf(err), operation, err instanceof Error ? err.message : String(err), { cause: err });
}

function failureOf(status: number | undefined, operation: string, detail: string, options?: ErrorOptions): StorageFailure {
  switch (status) {
    case 404:
      return new StorageNotFoundError(operation, status, detail, options);
    case 409:
      return new StorageConflictError(operation, status, detail, options);
    case 412:
      return new StoragePreconditionFailedError(operation, status, detail, options);
    default:
      return new StorageRequestError(operation, status, detail, options);
  }
}

/** A refused `$batch` as one of the closed set (by the failing operation's status), naming that operation. */
export function batchError(operation: string, failed: FailedOperation, detail: string): StorageFailure {
  const err = failureOf(failed.status, operation, `operation ${failed.index} (${failed.kind} ${failed.rowKey}) failed: ${failed.status}${failed.code ? ` ${failed.code}` : ''}: ${detail}`);
  err.failedOperation = failed;
  return err;
}

/** The operation a refused batch named; undefined for any other failure. */
export function failedOperationOf(err: unknown): FailedOperation | undefined {
  return err instanceof StorageError ? err.failedOperation : undefined;
}

/** A read-modify-write lost to concurrent writers more times than it may retry. */
export class ContentionError extends Error {
  override name = 'ContentionError';
  constructor(readonly what: string, readonly attempts: number) {
    super(`${what}: still contended after ${attempts} attempts`);
  }
}

/** The table or queue itself is gone (TableNotFound, QueueNotFound): `Storage.recreate` brings it back. */
export function isStorageGone(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (code === 'QueueNotFound' || code === 'TableNotFound' || /\b(QueueNotFound|TableNotFound)\b/.test(e.message)) return true;
  }
  return false;
}
