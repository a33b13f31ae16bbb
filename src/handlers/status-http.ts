import { randomUUID } from 'node:crypto';
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { errorMessage, invocationLog } from '../log.js';
import type { Runtime } from '../runtime/runtime.js';
import { buildStatus } from '../status/status.js';

export async function onStatusRequest(rt: Runtime, request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
  try {
      const limit = Number(request.query.get('decisions') ?? 50);
    return { status: 200, jsonBody: await buildStatus(rt, { decisions: Number.isFinite(limit) ? Math.min(500, Math.max(0, limit)) : 50 }) };
  } catch (err) {
    // The body is for whoever holds the function key; the details (a config or kubeconfig
    // problem, an endpoint) only go to the log, under an id the body gives.
    const errorId = randomUUID();
    invocationLog(context).error(`status failed [${errorId}]: ${errorMessage(err)}`);
    return { status: 500, jsonBody: { error: 'status is unavailable; the function app log has the details', errorId } };
  }
}
