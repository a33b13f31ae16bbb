import { randomUUID } from 'node:crypto';
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { errorMessage, invocationLog } from '../log.js';
import type { Runtime } from '../runtime/runtime.js';
import { buildStatus } from '../status/status.js';
import { queryProblem, statusFormat } from '../status/page/negotiate.js';
import { buildStatusPage, errorPage, pageHeaders } from '../status/page/status-page.js';

/** `GET /api/status`: the status page for a browser, JSON for anything else or with `?format=json`. */
export async function onStatusRequest(rt: Runtime, request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
  const problem = queryProblem(request.query);
  if (problem) return { status: 400, jsonBody: { error: problem.message, parameter: problem.parameter } };
  const format = statusFormat(request.headers.get('accept'), request.query.get('format'));
  try {
    const limit = Number(request.query.get('decisions') ?? 50);
    const status = await buildStatus(rt, { decisions: Number.isFinite(limit) ? Math.min(500, Math.max(0, limit)) : 50 });
    if (format === 'json') return { status: 200, jsonBody: status };
    const page = await buildStatusPage(rt, status, request.query);
    return { status: 200, headers: pageHeaders(page.nonce), body: page.html };
  } catch (err) {
    // The body is for whoever holds the function key; the details (a config or kubeconfig
    // problem, an endpoint) only go to the log, under an id the body gives.
    const errorId = randomUUID();
    invocationLog(context).error(`status failed [${errorId}]: ${errorMessage(err)}`);
    if (format === 'html') return { status: 500, headers: { 'content-type': 'text/html; charset=utf-8' }, body: errorPage(errorId) };
    return { status: 500, jsonBody: { error: 'status is unavailable; the function app log has the details', errorId } };
  }
}
