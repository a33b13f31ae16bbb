/**
 * A proxy in front of a simulator that injects the faults of the soak: bursts of 500 answers,
 * and silence (requests accepted and never answered) for a while.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { generateSimCertificate } from '../sim/arm/certificate.js';

export interface FaultProxy {
  url: string;
  caPem: string | undefined;
  /** The next `n` requests are answered 500. */
  fail(n: number): void;
  /** Requests are held unanswered until `silentFor` ms from now. */
  silence(ms: number): void;
  readonly counts: { failed: number; held: number; forwarded: number };
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string, upstreamCa?: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const secure = target.protocol === 'https:';
  const counts = { failed: 0, held: 0, forwarded: 0 };
  let failures = 0;
  let silentUntil = 0;
  const sockets = new Set<Socket>();
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (Date.now() < silentUntil) {
      counts.held++;
      return;
    }
    if (failures > 0) {
      failures--;
      counts.failed++;
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'InternalServerError', message: 'injected by the soak' } }));
      return;
    }
    counts.forwarded++;
    const forward = (secure ? https : http).request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, ...(secure ? { ca: upstreamCa } : {}) },
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
    caPem: certificate?.cert,
    fail: (n) => (failures += n),
    silence: (ms) => (silentUntil = Date.now() + ms),
    counts,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
