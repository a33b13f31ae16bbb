/**
 * A proxy in front of a simulator that misbehaves on demand, as real endpoints do: per request it
 * forwards, answers with an injected error, or accepts and never answers (a hung endpoint).
 * The soak and the deadline tests put it between Drover and the ARM or Kubernetes simulator.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { generateSimCertificate } from './arm/certificate.js';

export type ProxyAction = { kind: 'forward' } | { kind: 'hold' } | { kind: 'answer'; status: number; body: unknown };

export interface Proxy {
  url: string;
  /** PEM to trust when the upstream (and so the proxy) speaks HTTPS. */
  caPem?: string;
  close(): Promise<void>;
}

export async function startProxy(upstream: string, decide: (req: http.IncomingMessage) => ProxyAction, options: { upstreamCa?: string } = {}): Promise<Proxy> {
  const target = new URL(upstream);
  const secure = target.protocol === 'https:';
  const sockets = new Set<Socket>();
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const action = decide(req);
    if (action.kind === 'hold') return;
    if (action.kind === 'answer') {
      res.writeHead(action.status, { 'content-type': 'application/json' }).end(JSON.stringify(action.body));
      return;
    }
    const forward = (secure ? https : http).request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, ...(secure ? { ca: options.upstreamCa } : {}) },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
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
