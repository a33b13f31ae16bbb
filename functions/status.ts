/** Registers the status endpoint with the Functions host; src/handlers/ does the work. */
import { app } from '@azure/functions';
import { status } from '../src/handlers/registrations.js';
import { appRuntime } from '../src/runtime/app-runtime.js';

app.http(status.name, {
  methods: status.methods,
  authLevel: status.authLevel,
  route: status.route,
  handler: async (request, context) => status.handler(await appRuntime(), request, context),
});
