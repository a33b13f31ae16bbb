/**
 * The command line as a new user meets it: its version, a storage account that is not there, a
 * name that is not in the configuration, and a dry run that says each decision once.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { AZURITE_KEY } from '../../sim/azurite.js';
import { writeConfig } from '../support/config.js';
import { startWorld, type World } from '../support/world.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

async function drover(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const started = Date.now();
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {} });
  return { code, stdout, stderr, ms: Date.now() - started };
}

/** A port nobody listens on: taken from the OS, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

it('--version prints the version of package.json', async () => {
  const r = await drover('--version');
  expect(r.code).toBe(0);
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  expect(r.stdout.trim()).toBe(pkg.version);
});

describe('with Table Storage unreachable', () => {
  let file: string;
  let endpoint: string;
  beforeAll(async () => {
    endpoint = `http://127.0.0.1:${await closedPort()}/devstoreaccount1`;
    const connection = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${AZURITE_KEY};TableEndpoint=${endpoint};QueueEndpoint=${endpoint};`;
    file = writeConfig({ storage: { connection }, pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' } }], targets: [{ name: 'web', minScale: 1, scaleTargetRef: { kind: 'Pool', name: 'workers' } }], azure: { subscriptionId: '00000000-0000-0000-0000-000000000000' } });
  });

  it('status fails within 5 s, saying which endpoint it could not reach', async () => {
    const r = await drover('--config', file, 'status');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: cannot reach Table Storage at ${endpoint}: ECONNREFUSED\n`);
    expect(r.ms).toBeLessThan(5_000);
  });

  it('a target that is not in the configuration is a usage error, found before any connection', async () => {
    const r = await drover('--config', file, 'enqueue', '--target', 'nope');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: no target named "nope" in ${file}\n`);
  });
});

describe('reconcile --dry-run', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
    world.arm.sim.addScaleSet({ resourceGroup: 'rg', name: 'vmss', capacity: 2 });
  });
  afterAll(async () => {
    await world.close();
  });

  it('prints each decision once', async () => {
    const file = world.configFile({ pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' }, maxCount: 2, reconcileRate: '0s,1', creationRate: '0s,1' }] });
    const r = await drover('--config', file, 'reconcile', '--dry-run');
    expect(r.code).toBe(0);
    expect(`${r.stdout}${r.stderr}`.match(/pool\/workers/g)).toHaveLength(1);
    expect(r.stdout).toMatch(/pool\/workers +would adopt 2/);
  });
});
