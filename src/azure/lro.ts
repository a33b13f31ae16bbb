/**
 * Waiting on an ARM long-running operation for a bounded time only. A Functions invocation must
 * not sit on a scale-out that takes minutes: after the bound, the operation keeps running in ARM
 * and the caller re-reads the scale set on a later pass.
 */
import { ArmOperationFailedError } from './errors.js';
import type { LroResult } from './scale-set-api.js';

/** The part of the SDK's PollerLike used here. */
export interface BoundablePoller {
  readonly isDone: boolean;
  readonly operationState: { status: string; error?: Error } | undefined;
  submitted(): Promise<void>;
  pollUntilDone(options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}

export interface LroContext {
  operation: string;
  resource: string;
}

/**
 * Sends the operation (errors of the initial request propagate as they are), then polls until
 * it is done or `boundMs` has passed. A failed or canceled operation throws ArmOperationFailedError.
 */
export async function waitBounded(
  poller: BoundablePoller,
  boundMs: number,
  context: LroContext,
  signal?: AbortSignal,
): Promise<LroResult> {
  const started = performance.now();
  await poller.submitted();
  if (!poller.isDone && boundMs > 0) {
    const timeout = AbortSignal.timeout(boundMs);
    const abortSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      await poller.pollUntilDone({ abortSignal });
    } catch (error) {
      if (!(timeout.aborted && !signal?.aborted)) throwFailure(poller, context, error);
    }
  }
  if (!poller.isDone) return { done: false, waitedMs: Math.round(performance.now() - started) };
  throwFailure(poller, context, poller.operationState?.error);
  return { done: true };
}

/** Throws ArmOperationFailedError when the operation ended unsuccessfully, else rethrows `error` if any. */
function throwFailure(poller: BoundablePoller, context: LroContext, error: unknown): void {
  const status = poller.operationState?.status;
  if (status === 'failed' || status === 'canceled') {
    const detail = error instanceof Error ? error.message : status;
    throw new ArmOperationFailedError(context.operation, context.resource, detail, { cause: error });
  }
  if (error !== undefined) throw error;
}
