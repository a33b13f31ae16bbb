/**
 * The ARM simulator in a process of its own, so a benchmark's CPU figures count only the
 * client side. Driven over IPC: `{ addScaleSet }` adds one; the reply carries the URL and CA.
 * `{ proxy: port }` starts a counting HTTP proxy in front of that port (Azurite's Table
 * endpoint): every reply then carries how many requests went through it.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startArmSim, type SimScaleSetSpec } from '../sim/arm/index.js';

const sim = await startArmSim({ subscriptionId: process.argv[2], pageSize: 1000 });
let proxied = 0;
const byKind = new Map<string, number>();

function startProxy(target: number): Promise<number> {
  const server = createServer((req, res) => {
    proxied++;
    // Which table and verb: where a pass's requests go.
    const kind = `${req.method} ${(req.url ?? '').split('?')[0]!.split('/')[2]?.replace(/\(.*$/, '()') ?? ''}`;
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    const upstream = request({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

process.on('message', (msg: { addScaleSet?: SimScaleSetSpec; counts?: true; close?: true; proxy?: number }) => {
  void (async () => {
    if (msg.addScaleSet) sim.addScaleSet(msg.addScaleSet);
    if (msg.close) return void sim.close().then(() => process.exit(0));
    const proxyPort = msg.proxy === undefined ? undefined : await startProxy(msg.proxy);
    process.send?.({ counts: { ...sim.counts }, tableRequests: proxied, byKind: Object.fromEntries(byKind), proxyPort });
  })();
});
process.send?.({ url: sim.url, caPem: sim.caPem });
