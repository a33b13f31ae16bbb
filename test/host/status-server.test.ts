import { expect, it } from 'vitest';
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
