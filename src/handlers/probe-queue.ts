import type { InvocationContext } from '@azure/functions';
import { invocationLog } from '../log.js';
import { messageId } from './trigger.js';
import { runProbeAttempt, type AttemptOutcome } from '../probe/async-probe.js';
import { probeActivator } from '../probe/activator-probe.js';
import { decodeMessage, probeMessageSchema } from '../queue/messages.js';
import type { Runtime } from '../runtime/runtime.js';

/** One attempt of an asynchronous activator probe; a malformed message is logged and dropped. */
export async function onProbeMessage(rt: Runtime, message: unknown, context: InvocationContext): Promise<AttemptOutcome | undefined> {
  const log = invocationLog(context);
  const decoded = decodeMessage(probeMessageSchema, message);
  if (!decoded.ok) {
    log.error(`dropping malformed message ${messageId(context)} from ${rt.storage.names.queues.probe}: ${decoded.reason}`);
    return undefined;
  }
  return runProbeAttempt(rt.stores.probe, decoded.message, (url) => probeActivator(url, { signal: rt.shutdown.signal }), log);
}

/** The target a probe message is for (its lane in the local host), when it decodes. */
export function probeLane(message: unknown): string | undefined {
  const decoded = decodeMessage(probeMessageSchema, message);
  return decoded.ok ? `target/${decoded.message.target}` : undefined;
}
