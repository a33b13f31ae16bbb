import { expect, it } from 'vitest';
import { runDemo } from '../../sim/demo.js';

it('drover sim starts Azurite, the simulators and the local host, runs passes and stops cleanly', async () => {
  let out = '';
  const before = { ...process.env };
  const code = await runDemo({ stdout: (s) => (out += s), stderr: (s) => (out += s), env: {} }, { forMs: 4_000, statusEveryMs: 3_000 });
  expect(code).toBe(0);
  // The runtime is handed to the handlers, not found through app settings the demo would set.
  expect(process.env).toEqual(before);
  expect(out).toMatch(/Drover is running on .*drover\.config\.yaml/);
  expect(out).toMatch(/Status page: +http:\/\/127\.0\.0\.1:\d+\/api\/status\n/);
  expect(out).toMatch(/reconcileTimer: executing/);
  expect(out).toMatch(/POOLS \(1\)[\s\S]*workers: scale set rg-demo\/vmss-workers/);
  expect(out).toMatch(/Stopping the demo/);
}, 30_000);
