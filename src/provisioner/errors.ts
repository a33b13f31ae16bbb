/** The provisioner's domain errors. */

/** The pool's lease expired mid-pass (the seed's ErrSessionExpired): stop, and start over on a later pass. */
export class SessionExpiredError extends Error {
  override name = 'SessionExpiredError';
  constructor(detail?: string, options?: ErrorOptions) {
    super(detail ? `session expired: ${detail}` : 'session expired', options);
  }
}

/** True when the error, or any error in its `cause` chain, is a SessionExpiredError. */
export function isSessionExpiredError(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 16; e = e.cause, depth++) {
    if (e instanceof SessionExpiredError) return true;
  }
  return false;
}

/** One of the two parallel listings failed; the other was aborted. */
export class ListingError extends Error {
  override name = 'ListingError';
  constructor(
    readonly side: 'provider' | 'inventory',
    cause: unknown,
  ) {
    super(`listing ${side} machines failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export function isListingError(err: unknown): err is ListingError {
  return err instanceof ListingError;
}

export class ProvisionerConfigError extends Error {
  override name = 'ProvisionerConfigError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export function isProvisionerConfigError(err: unknown): err is ProvisionerConfigError {
  return err instanceof ProvisionerConfigError;
}
