// A proxy in front of a simulator that forwards every request except those `silent` picks:
// it accepts those and never answers, as a hung endpoint does.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { generateSimCertificate } from '../../sim/arm/certificate.js';

export interface SilentProxy {
  url: string;
  /** PEM to trust for an HTTPS proxy. */
  caPem?: string;
  /** Requests held without an answer so far. */
  held(): number;
  close(): Promise<void>;
}

export async function silentProxy(
  upstream: string,
  silent: (req: http.IncomingMessage) => boolean,
  options: { upstreamCa?: string } = {},
): Promise<SilentProxy> {
  const target = new URL(upstream);
  const secure = target.protocol === 'https:';
  let held = 0;
  const sockets = new Set<Socket>();
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (silent(req)) {
      held++;
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
    held: () => held,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
