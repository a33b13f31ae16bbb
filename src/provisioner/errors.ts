/** The provisioner's domain errors. */

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
