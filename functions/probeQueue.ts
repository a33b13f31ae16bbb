import { app, type InvocationContext } from '@azure/functions';
import { onProbeMessage } from '../src/handlers/probe-queue.js';

export async function probeQueue(message: unknown, context: InvocationContext): Promise<void> {
  await onProbeMessage(message, context);
}

app.storageQueue('probeQueue', {
  queueName: '%DROVER_PROBE_QUEUE%',
  connection: 'AzureWebJobsStorage',
  handler: probeQueue,
});
