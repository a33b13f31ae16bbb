/** Registers the reconcileQueue trigger with the Functions host; src/handlers/ does the work. */
import { app } from '@azure/functions';
import { reconcileQueue } from '../src/handlers/registrations.js';
import { appRuntime } from '../src/runtime/app-runtime.js';

app.storageQueue(reconcileQueue.name, {
  queueName: reconcileQueue.queueName,
  connection: 'AzureWebJobsStorage',
  handler: async (message, context) => {
    await reconcileQueue.handler(await appRuntime(), message, context);
  },
});
