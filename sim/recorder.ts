/**
 * The exchange recorder every simulator server uses, so that what Drover sends and what the
 * simulators answer can be checked against the official API specifications (`npm run check:api`).
 * One line per server joins a simulator:
 *
 *   const server = createServer(recorded('arm', handler, options.recordDir));
 *
 * With no directory (neither given nor `DROVER_RECORD_DIR`) the handler is returned unchanged.
 * Each exchange is one JSON line in `<dir>/<service>-<pid>-<n>.jsonl`: the request (method, url,
 * headers with `authorization` only as present or absent, body) and the answer (status, headers,
 * body), or `null` when none was sent (a silence). An answer sent under a scripted fault
 * (`markFault`) carries the fault's name: its request is checked, its answer is not.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** The services the check knows a specification for; others are recorded for the record only. */
export type RecordedService = 'arm' | 'kubernetes' | (string & {});

export const RECORD_DIR_ENV = 'DROVER_RECORD_DIR';
/** Who made the traffic (the test file, set by test/support/record-source.ts): recorded with each exchange. */
export const RECORD_SOURCE_ENV = 'DROVER_RECORD_SOURCE';

export interface RecordedExchange {
  service: RecordedService;
  /** The test file (or other source) that made the exchange, when one was named (RECORD_SOURCE_ENV). */
  source?: string;
  /** Set when the answer was scripted to misbehave: exempt from the answer check. */
  fault?: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  response: { status: number; headers: Record<string, string>; body?: unknown } | null;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A recorded body larger than this is cut (a huge page is a fault; its size is the point, not its text). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const faults = new WeakMap<ServerResponse, string>();

/** Tags the answer `res` is about to send as a scripted fault (malformed JSON, a huge page, a silence…). */
export function markFault(res: ServerResponse, fault: string): void {
  faults.set(res, fault);
}

let files = 0;

/**
 * `handler`, recording every exchange under `dir` (default: `DROVER_RECORD_DIR`); unchanged without one.
 * `service` may name each request's service, for a simulator serving more than one API.
 */
export function recorded(
  service: RecordedService | ((req: IncomingMessage) => RecordedService),
  handler: Handler,
  dir: string | undefined = process.env[RECORD_DIR_ENV],
): Handler {
  if (!dir) return handler;
  mkdirSync(dir, { recursive: true });
  const serviceOf = typeof service === 'function' ? service : () => service;
  const file = path.join(dir, `${typeof service === 'function' ? 'mixed' : service}-${process.pid}-${++files}.jsonl`);
  return (req, res) => {
    const requestBody = captureRequest(req);
    const answer = captureResponse(res);
    let written = false;
    const write = (sent: boolean) => {
      if (written) return;
      written = true;
      const fault = faults.get(res) ?? (sent ? undefined : 'silence');
      const source = process.env[RECORD_SOURCE_ENV];
      const exchange: RecordedExchange = {
        service: serviceOf(req),
        ...(source ? { source } : {}),
        ...(fault ? { fault } : {}),
        request: { method: req.method ?? 'GET', url: req.url ?? '/', headers: requestHeaders(req.headers), ...bodyOf(requestBody(), req.headers['content-type']) },
        response: sent ? { status: res.statusCode, headers: answer.headers(), ...bodyOf(answer.body(), String(res.getHeader('content-type') ?? answer.headers()['content-type'] ?? '')) } : null,
      };
      appendFileSync(file, `${JSON.stringify(exchange)}\n`);
    };
    res.once('finish', () => write(true));
    res.once('close', () => write(res.writableFinished));
    handler(req, res);
  };
}

function captureRequest(req: IncomingMessage): () => Buffer {
  const chunks: Buffer[] = [];
  let size = 0;
  // The body as the HTTP parser hands it over, whichever way the handler then reads it.
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (Buffer.isBuffer(chunk) && size < MAX_BODY_BYTES) {
      chunks.push(chunk);
      size += chunk.length;
    }
    return push(chunk, encoding);
  };
  return () => Buffer.concat(chunks);
}

function captureResponse(res: ServerResponse): { headers: () => Record<string, string>; body: () => Buffer } {
  const chunks: Buffer[] = [];
  let size = 0;
  let written: OutgoingHttpHeaders = {};
  const keep = (chunk: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function' || size >= MAX_BODY_BYTES) return;
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    chunks.push(buffer);
    size += buffer.length;
  };
  const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const headers = args.find((a) => typeof a === 'object' && a !== null);
    if (headers && !Array.isArray(headers)) written = headers as OutgoingHttpHeaders;
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk);
    return write(chunk, ...rest);
  }) as ServerResponse['write'];
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  res.end = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk);
    return end(chunk, ...rest);
  }) as ServerResponse['end'];
  return {
    headers: () => stringHeaders({ ...res.getHeaders(), ...lowerKeys(written) }),
    body: () => Buffer.concat(chunks),
  };
}

function requestHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out = stringHeaders(headers);
  // Never a token in a file: only whether one was sent.
  if ('authorization' in out) out.authorization = 'present';
  return out;
}

function lowerKeys(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function stringHeaders(headers: IncomingHttpHeaders | OutgoingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** `{ body }`: parsed JSON when it parses, the text otherwise (a malformed answer is kept as sent); nothing when empty. */
function bodyOf(raw: Buffer, contentType: string | undefined): { body?: unknown } {
  if (raw.length === 0) return {};
  const text = raw.toString('utf8');
  if (/json/i.test(contentType ?? '') || /^\s*[[{]/.test(text)) {
    try {
      return { body: JSON.parse(text) as unknown };
    } catch {
      return { body: text };
    }
  }
  return { body: text };
}
