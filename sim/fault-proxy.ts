/**
 * A proxy in front of a simulator that misbehaves on demand, as real endpoints do: per request it
 * forwards, answers with an injected error, or accepts and never answers (a hung endpoint).
 * The soak and the deadline tests put it between Drover and the ARM or Kubernetes simulator.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { generateSimCertificate } from './arm/certificate.js';
import { markFault, recorded, type RecordedService } from './recorder.js';

export type ProxyAction = { kind: 'forward' } | { kind: 'hold' } | { kind: 'answer'; status: number; body: unknown };

export interface Proxy {
  url: string;
  /** PEM to trust when the upstream (and so the proxy) speaks HTTPS. */
  caPem?: string;
  close(): Promise<void>;
}

export interface ProxyOptions {
  upstreamCa?: string;
  /** The service behind it, as the recorder names it. Default: `arm` over HTTPS, `kubernetes` over HTTP. */
  service?: RecordedService;
  /** Record its made-up answers here (sim/recorder.ts). Default: `DROVER_RECORD_DIR`. */
  recordDir?: string;
}

export async function startProxy(upstream: string, decide: (req: http.IncomingMessage) => ProxyAction, options: ProxyOptions = {}): Promise<Proxy> {
  const target = new URL(upstream);
  const secure = target.protocol === 'https:';
  const sockets = new Set<Socket>();
  const forward = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const request = (secure ? https : http).request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, ...(secure ? { ca: options.upstreamCa } : {}) },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    request.on('error', () => res.destroy());
    req.pipe(request);
  };
  const actions = new WeakMap<http.IncomingMessage, ProxyAction>();
  // Forwarded exchanges are recorded by the simulator itself; the proxy records what it makes up.
  const misbehave = recorded(options.service ?? (secure ? 'arm' : 'kubernetes'), (req, res) => {
    const action = actions.get(req);
    if (action?.kind !== 'answer') return;
    markFault(res, `scripted ${action.status}`);
    res.writeHead(action.status, { 'content-type': 'application/json' }).end(JSON.stringify(action.body));
  }, options.recordDir);
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const action = decide(req);
    if (action.kind === 'forward') return forward(req, res);
    actions.set(req, action);
    misbehave(req, res);
  };
  const certificate = secure ? await generateSimCertificate() : undefined;
  const server = certificate ? https.createServer({ key: certificate.key, cert: certificate.cert }, handler) : http.createServer(handler);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${secure ? 'https' : 'http'}://127.0.0.1:${port}`,
    ...(certificate ? { caPem: certificate.cert } : {}),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
