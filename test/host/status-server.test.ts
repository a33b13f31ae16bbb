import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { startStatusServer } from '../../src/host/status-server.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { startLocalHost } from '../../src/host/local-host.js';
import { silentLog } from '../../src/log.js';
import { startWorld } from '../support/world.js';

it('the local host serves the status page on 127.0.0.1: HTML to a browser, JSON otherwise, and stops serving when stopped', async () => {
  const world = await startWorld();
  world.arm.sim.addScaleSet({ resourceGroup: 'rg', name: 'vmss', capacity: 1 });
  const rt = await createRuntime({ configFile: world.configFile({ pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' }, maxCount: 1 }] }) });
  const host = await startLocalHost({ rt, log: silentLog, schedule: '0 0 0 1 1 *', statusPort: 0 });
  try {
    expect(host.statusUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/status$/);
    const url = host.statusUrl!;
    const page = await fetch(`${url}?code=abc`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
    expect(await page.text()).toContain('<section class="object pool" id="pool-workers"');
    const json = await fetch(url);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await json.json()) as { pools: { name: string }[] }).pools.map((p) => p.name)).toEqual(['workers']);
    const root = await fetch(url.replace('/api/status', '/'), { redirect: 'manual' });
    expect([root.status, root.headers.get('location')]).toEqual([302, '/api/status']);
    expect((await fetch(url.replace('/api/status', '/api/other'))).status).toBe(404);
  } finally {
    await host.stop();
    await world.close();
  }
  await expect(fetch(host.statusUrl!)).rejects.toThrow();
});

describe('the status server and the Host header (DNS rebinding)', () => {
  const get = (url: string, host: string | undefined) =>
    new Promise<number>((resolve, reject) => {
      const target = new URL(url);
      const headers: Record<string, string> = host === undefined ? {} : { host };
      const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, headers, setHost: host !== undefined }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });

  it('answers loopback names only, with its own port or none; any other name gets 421', async () => {
    const server = await startStatusServer({ handler: () => Promise.resolve({ status: 200, body: 'ok' }), port: 0, log: silentLog });
    try {
      const port = new URL(server.url).port;
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, 'localhost', '127.0.0.1']) {
        expect(await get(server.url, host), host).toBe(200);
      }
      for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`, `localhost:${Number(port) + 1}`, `localhost.:${port}`, `0.0.0.0:${port}`]) {
        expect(await get(server.url, host), host).toBe(421);
      }
      // Node itself refuses an HTTP/1.1 request without Host.
      expect(await get(server.url, undefined)).toBe(400);
    } finally {
      await server.close();
    }
  });
});
