import type { InvocationContext } from '@azure/functions';

/** The queue message id the trigger passed, for log lines about that message. */
export function messageId(context: InvocationContext): string {
  const id = context.triggerMetadata?.id;
  return typeof id === 'string' ? id : '(unknown id)';
}
