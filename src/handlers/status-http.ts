import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { errorMessage } from '../log.js';
import type { Runtime } from '../runtime/runtime.js';
import { buildStatus } from '../status/status.js';

export async function onStatusRequest(rt: Runtime, request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
  try {
      const limit = Number(request.query.get('decisions') ?? 50);
    return { status: 200, jsonBody: await buildStatus(rt, { decisions: Number.isFinite(limit) ? Math.min(500, Math.max(0, limit)) : 50 }) };
  } catch (err) {
    context.error(`status failed: ${errorMessage(err)}`);
    return { status: 500, jsonBody: { error: errorMessage(err) } };
  }
}
