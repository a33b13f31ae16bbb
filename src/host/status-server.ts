/**
 * The status page on the local host: `GET /api/status` on 127.0.0.1 (the same route as in
 * Azure, with no function key, as nothing but this machine can reach it), answered by the
 * `status` registration's handler, as the Functions host would. `/` leads to it.
 *
 * Loopback alone does not keep other sites out: a page the operator opens elsewhere can point
 * a name of its own at 127.0.0.1 (DNS rebinding) and read the page through the browser. Such a
 * request carries that name in `Host`, so only the loopback names are served (`localhost`,
 * `127.0.0.1`, `[::1]`, with or without the port); anything else is answered 421.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import azureFunctions from '@azure/functions';
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { errorMessage, type Log } from '../log.js';
import { newInvocationContext } from './invocation.js';

export const STATUS_PATH = '/api/status';
/** The Functions host's own local port; a busy one falls back to any free port. */
export const DEFAULT_STATUS_PORT = 7071;

export interface StatusServer {
  /** `http://127.0.0.1:<port>/api/status` */
  url: string;
  close(): Promise<void>;
}

export type StatusHandler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

export async function startStatusServer(options: { handler: StatusHandler; port?: number; log: Log }): Promise<StatusServer> {
  const server = createServer((req, res) => {
    if (!isLoopbackHostHeader(req.headers.host, (server.address() as AddressInfo).port)) {
      return text(res, 421, 'misdirected request: the status page answers only to localhost, 127.0.0.1 or [::1]\n');
    }
    serve(req, res, options.handler, options.log).catch((err: unknown) => {
      options.log.error(`status page: ${errorMessage(err)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('status failed\n');
    });
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const wanted = options.port ?? DEFAULT_STATUS_PORT;
  try {
    await listen(wanted);
  } catch (err) {
    if (wanted === 0 || !(err instanceof Error && 'code' in err && err.code === 'EADDRINUSE')) throw err;
    await listen(0);
  }
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${STATUS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, handler: StatusHandler, log: Log): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/') {
    res.writeHead(302, { location: STATUS_PATH });
    res.end();
    return;
  }
  if (url.pathname !== STATUS_PATH) return text(res, 404, 'not found: the status page is /api/status\n');
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, 'GET only\n');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
  const request = new azureFunctions.HttpRequest({ method: 'GET', url: url.toString(), headers });
  const context = newInvocationContext('status', {}, (level, ...args) => (level === 'error' ? log.error(...args) : undefined));
  const response = await handler(request, context);
  const out = new Headers(response.headers as Record<string, string> | undefined);
  let body: string;
  if (response.jsonBody !== undefined) {
    out.set('content-type', 'application/json; charset=utf-8');
    body = JSON.stringify(response.jsonBody);
  } else {
    body = typeof response.body === 'string' ? response.body : '';
  }
  res.writeHead(response.status ?? 200, Object.fromEntries(out));
  res.end(req.method === 'HEAD' ? undefined : body);
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Whether a request's `Host` names this server by a loopback name (port, if given, its own). */
export function isLoopbackHostHeader(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const value = host.trim().toLowerCase();
  return LOOPBACK_NAMES.some((name) => value === name || value === `${name}:${port}`);
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(body);
}
