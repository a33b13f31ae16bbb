/**
 * Whether a failure may pass by itself, so that a queued reconcile is worth retrying (and, after
 * maxDequeueCount tries, poisoned) rather than recorded and left for an operator. The one place
 * that decides it, over the closed error sets of the adapters:
 *
 * | error                                                        | transient |
 * | ------------------------------------------------------------ | --------- |
 * | RateLimitedError (ARM, Kubernetes, a limiter)                | yes       |
 * | ArmConflictError, ArmPreconditionFailedError, TargetConflictError | yes  |
 * | ArmOperationFailedError (ARM may succeed on the next try)    | yes       |
 * | Storage 409/412, ContentionError, LeaseExpiredError          | yes       |
 * | TimeoutError, AbortedError (a deadline: request, pass, lease) | yes      |
 * | ArmRequestError, KubernetesRequestError, StorageRequestError | no answer, 408, 429 or ≥ 500: yes; other 4xx: no |
 * | ArmNotFoundError, TargetNotFoundError, StorageNotFoundError  | no        |
 * | configuration problems (credential, limiter burst, storage, resource ids, orchestration) | no |
 * | anything else (a network error, a bug)                       | yes: retried, then poisoned |
 */
import { ArmConflictError, ArmNotFoundError, ArmOperationFailedError, ArmPreconditionFailedError, ArmRequestError, CredentialConfigError } from '../azure/errors.js';
import { InvalidResourceIdError } from '../cache/ids.js';
import { FlexNodesDisabledError, UnknownOrchestrationModeError } from '../cache/orchestration.js';
import { KubernetesRequestError, TargetConflictError, TargetNotFoundError } from '../kubernetes/errors.js';
import {
  ContentionError,
  StorageConflictError,
  StorageNotFoundError,
  StoragePreconditionFailedError,
  StorageRequestError,
} from '../state/errors.js';
import { StorageConfigError } from '../state/storage.js';
import { LimiterBurstError, RateLimitedError } from './rate-limited.js';
import { AbortedError, TimeoutError } from '../deadline.js';

const PERMANENT = [
  ArmNotFoundError,
  TargetNotFoundError,
  StorageNotFoundError,
  CredentialConfigError,
  LimiterBurstError,
  StorageConfigError,
  InvalidResourceIdError,
  UnknownOrchestrationModeError,
  FlexNodesDisabledError,
];

const PASSING = [
  RateLimitedError,
  ArmConflictError,
  ArmPreconditionFailedError,
  ArmOperationFailedError,
  TargetConflictError,
  StorageConflictError,
  StoragePreconditionFailedError,
  ContentionError,
  TimeoutError,
  AbortedError,
];

export function isTransient(error: unknown): boolean {
  if (PASSING.some((type) => error instanceof type)) return true;
  if (PERMANENT.some((type) => error instanceof type)) return false;
  if (error instanceof ArmRequestError || error instanceof KubernetesRequestError || error instanceof StorageRequestError) {
    return transientStatus(error.statusCode);
  }
  return true;
}

/** No answer at all (network, TLS), a timeout, throttling or a server error may pass; another 4xx will not. */
function transientStatus(statusCode: number | undefined): boolean {
  return statusCode === undefined || statusCode === 408 || statusCode === 429 || statusCode >= 500;
}
