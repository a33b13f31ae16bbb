import { expect, it } from 'vitest';
import { runDemo } from '../../sim/demo.js';

it('drover sim starts Azurite, the simulators and the local host, tells what changes, and stops cleanly', async () => {
  let out = '';
  const before = { ...process.env };
  // Stops once the first pass has been told (or after 30 s, and the expectations below then say what is missing).
  const stop = new AbortController();
  const told = /= workers: capacity \d+, .*inventory [2-9]/;
  const write = (s: string) => {
    out += s;
    if (told.test(out)) stop.abort();
  };
  const code = await runDemo({ stdout: write, stderr: write, env: {} }, { forMs: 30_000, signal: stop.signal, storyEveryMs: 500, cliCommand: 'node /x/cli.js' });
  expect(code).toBe(0);
  // The runtime is handed to the handlers, not found through app settings the demo would set.
  expect(process.env).toEqual(before);
  expect(out).toMatch(/Drover is running on .*drover\.config\.yaml/);
  expect(out).toMatch(/In another terminal: +node \/x\/cli\.js --config \S+drover\.config\.yaml status/);
  // A summary per pool and target, then a line per change: the first pass adopts the two VMs there.
  expect(out).toMatch(/ {2}= workers: not read yet/);
  // (Readings fall where they fall: the adoptions and a capacity raise may share one or not.)
  expect(out).toMatch(/workers: adopted (\S+, )*rg-demo\/vmss-workers\/0(, \S+)* into the inventory/);
  expect(out).toMatch(/workers: adopted (\S+, )*rg-demo\/vmss-workers\/1(, \S+)* into the inventory/);
  expect(out).toMatch(told);
  expect(out).toMatch(/ {2}= web: ready 1, scale 1, .*active/);
  // Without --verbose, no per-tick line of the host or the provisioner.
  expect(out).not.toMatch(/executing|pass finished|Getting provider|Got \d+ machines|executed message/);
  expect(out).toMatch(/Status page: +http:\/\/127\.0\.0\.1:\d+\/api\/status\n/);
  expect(out).toMatch(/Stopping the demo/);
}, 60_000);
