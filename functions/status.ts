import { app, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import { onStatusRequest } from '../src/handlers/status-http.js';

export async function status(request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
  return onStatusRequest(request, context);
}

app.http('status', { methods: ['GET'], authLevel: 'function', route: 'status', handler: status });
