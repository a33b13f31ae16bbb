import { app, type InvocationContext } from '@azure/functions';
import { onReconcileMessage } from '../src/handlers/reconcile-queue.js';

export async function reconcileQueue(message: unknown, context: InvocationContext): Promise<void> {
  await onReconcileMessage(message, context);
}

app.storageQueue('reconcileQueue', {
  queueName: '%DROVER_RECONCILE_QUEUE%',
  connection: 'AzureWebJobsStorage',
  handler: reconcileQueue,
});
