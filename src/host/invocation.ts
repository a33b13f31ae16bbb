/**
 * Builds real InvocationContext objects outside the Functions host. @azure/functions is a
 * CommonJS bundle whose classes are not named ESM exports, hence the default import.
 */
import { randomUUID } from 'node:crypto';
import azureFunctions from '@azure/functions';
import type { InvocationContext } from '@azure/functions';

export type AnyInvocationContext = InvocationContext;

export function newInvocationContext(
  functionName: string,
  triggerMetadata: Record<string, unknown> = {},
  logHandler?: (level: string, ...args: unknown[]) => void,
): InvocationContext {
  return new azureFunctions.InvocationContext({
    invocationId: randomUUID(),
    functionName,
    triggerMetadata,
    ...(logHandler ? { logHandler } : {}),
  });
}

/** A log handler that sends what a handler logs through its context to the host's log. */
export function logHandlerFor(log: { info(...a: unknown[]): void; warn(...a: unknown[]): void; error(...a: unknown[]): void }) {
  return (level: string, ...args: unknown[]) => (level === 'error' || level === 'critical' ? log.error : level === 'warning' ? log.warn : log.info)(...args);
}
