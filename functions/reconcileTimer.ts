/** Registers the timer pass with the Functions host; src/handlers/ does the work. */
import { app } from '@azure/functions';
import { reconcileTimer } from '../src/handlers/registrations.js';
import { appRuntime } from '../src/runtime/app-runtime.js';

app.timer(reconcileTimer.name, {
  schedule: reconcileTimer.schedule,
  handler: async (timer, context) => {
    await reconcileTimer.handler(await appRuntime(), timer, context);
  },
});
