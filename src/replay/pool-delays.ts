/**
 * The defaults of `drover replay --creation-delay` and `--start-delay`, for a Pool target's pool.
 * Apart, so that declaring the command line loads no replay.
 */

/** About what a scale set VM takes from a capacity raise to running (provision and boot). */
export const DEFAULT_CREATION_DELAY_MS = 180_000;
/** About what a deallocated VM takes from a start to running. */
export const DEFAULT_START_DELAY_MS = 40_000;
