/** Registers the probeQueue trigger with the Functions host; src/handlers/ does the work. */
import { app } from '@azure/functions';
import { probeQueue } from '../src/handlers/registrations.js';
import { appRuntime } from '../src/runtime/app-runtime.js';

app.storageQueue(probeQueue.name, {
  queueName: probeQueue.queueName,
  connection: 'AzureWebJobsStorage',
  handler: async (message, context) => {
    await probeQueue.handler(await appRuntime(), message, context);
  },
});
