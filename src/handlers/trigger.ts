import type { InvocationContext } from '@azure/functions';
import { getRuntime } from '../runtime/runtime.js';

/** The queue message id the trigger passed, for log lines about that message. */
export function messageId(context: InvocationContext): string {
  const id = context.triggerMetadata?.id;
  return typeof id === 'string' ? id : '(unknown id)';
}

const APP_SETTING = { reconcile: 'DROVER_RECONCILE_QUEUE', probe: 'DROVER_PROBE_QUEUE' } as const;

/**
 * The name of the queue a message came from: the app setting the function binds to in Azure,
 * else the runtime's (the local host), else the queue's role when neither can be had.
 */
export async function queueName(role: keyof typeof APP_SETTING): Promise<string> {
  const bound = process.env[APP_SETTING[role]];
  if (bound) return bound;
  return getRuntime().then(
    (rt) => rt.storage.names.queues[role],
    () => `the ${role} queue`,
  );
}
