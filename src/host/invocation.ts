/**
 * Builds real InvocationContext objects outside the Functions host. @azure/functions is a
 * CommonJS bundle whose classes are not named ESM exports, hence the default import. Importing
 * it registers nothing; only `app.*` calls do (and warn outside the host), and none happen here.
 */
import { randomUUID } from 'node:crypto';
import azureFunctions from '@azure/functions';
import type { InvocationContext } from '@azure/functions';
import type { Log } from '../log.js';

export type AnyInvocationContext = InvocationContext;

export type LogHandler = (level: string, ...args: unknown[]) => void;

export function newInvocationContext(functionName: string, triggerMetadata: Record<string, unknown> = {}, logHandler?: LogHandler): InvocationContext {
  return new azureFunctions.InvocationContext({
    invocationId: randomUUID(),
    functionName,
    triggerMetadata,
    ...(logHandler ? { logHandler } : {}),
  });
}

/**
 * What a handler logs through its context goes to the host's log, prefixed with the function's
 * name (the package's own fallback would write to the console whatever the host was given).
 */
export function logHandlerFor(functionName: string, log: Log): LogHandler {
  return (level, ...args) => {
    const line = `${functionName}: ${args.map(String).join(' ')}`;
    if (level === 'error' || level === 'critical') log.error(line);
    else if (level === 'warning') log.warn(line);
    else if (level === 'debug' || level === 'trace') log.debug?.(line);
    else log.info(line);
  };
}
