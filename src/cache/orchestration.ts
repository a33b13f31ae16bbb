/**
 * Which VM listing a scale set needs. Flexible scale sets are listed only when the pool opts in
 * (`enableVmssFlexNodes`), as upstream; anything else ARM reports is an error, not a guess.
 */
import type { OrchestrationMode } from '../azure/scale-set-api.js';

export class FlexNodesDisabledError extends Error {
  constructor(readonly scaleSet: string) {
    super(
      `vmss - "${scaleSet}" with Flexible orchestration detected but 'enableVmssFlexNodes' feature flag is turned off`,
    );
    this.name = 'FlexNodesDisabledError';
  }
}

export class UnknownOrchestrationModeError extends Error {
  constructor(
    readonly scaleSet: string,
    readonly reported: string | undefined,
  ) {
    super(`failed to determine orchestration mode for vmss "${scaleSet}"`);
    this.name = 'UnknownOrchestrationModeError';
  }
}

export function isFlexNodesDisabledError(error: unknown): error is FlexNodesDisabledError {
  return error instanceof FlexNodesDisabledError;
}

export function isUnknownOrchestrationModeError(
  error: unknown,
): error is UnknownOrchestrationModeError {
  return error instanceof UnknownOrchestrationModeError;
}

export type ListingMode =
  | { ok: true; mode: OrchestrationMode }
  | { ok: false; error: FlexNodesDisabledError | UnknownOrchestrationModeError };

/** `reported` is the scale set's `orchestrationMode` as ARM returned it (exact spelling). */
export function listingModeFor(
  scaleSet: string,
  reported: string | undefined,
  enableVmssFlexNodes: boolean,
): ListingMode {
  if (reported === 'Uniform') return { ok: true, mode: 'Uniform' };
  if (reported === 'Flexible') {
    return enableVmssFlexNodes
      ? { ok: true, mode: 'Flexible' }
      : { ok: false, error: new FlexNodesDisabledError(scaleSet) };
  }
  return { ok: false, error: new UnknownOrchestrationModeError(scaleSet, reported) };
}
