// Issue 13: paging with a cap. A listing stops at the caller's VM cap, follows no more pages
// than that cap allows (an endpoint answering empty pages with a nextLink for ever included),
// and stops at once when its signal aborts.
import { writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createComputeScaleSetApi } from '../../src/azure/compute-adapter.js';
import { ArmRequestError } from '../../src/azure/errors.js';
import { generateSimCertificate } from '../../sim/arm/certificate.js';
import { armWorldPerFile } from '../support/arm.js';
import { SUBSCRIPTION } from '../support/config.js';

const world = armWorldPerFile({ pageSize: 2 });

describe('a VM listing with a cap', () => {
  it('refuses more VMs than the cap, naming it, after no more pages than it needs', async () => {
    world.sim.addScaleSet({ resourceGroup: 'rg-cap', name: 'big', capacity: 12 });
    const api = await createComputeScaleSetApi(world.azure);
    world.sim.resetCounts();
    const error = await api.listVms('rg-cap', 'big', 'Uniform', { maxVms: 5 }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ArmRequestError);
    expect((error as Error).message).toMatch(/more than 5 VMs/);
    expect(world.sim.counts.listVms).toBeLessThanOrEqual(3);
    expect((await api.listVms('rg-cap', 'big', 'Uniform', { maxVms: 12 })).vms).toHaveLength(12);
  });

  it('stops at once when its signal is aborted', async () => {
    world.sim.addScaleSet({ resourceGroup: 'rg-cap', name: 'aborted', capacity: 6 });
    const api = await createComputeScaleSetApi(world.azure);
    world.sim.resetCounts();
    const ac = new AbortController();
    ac.abort(new Error('lease lost'));
    await expect(api.listVms('rg-cap', 'aborted', 'Uniform', { abortSignal: ac.signal })).rejects.toBeInstanceOf(ArmRequestError);
    expect(world.sim.counts.listVms).toBe(0);
  });

  it('follows an endless chain of empty pages no further than the cap allows', async () => {
    const certificate = await generateSimCertificate();
    let requests = 0;
    const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
      requests++;
      const next = `https://127.0.0.1:${(server.address() as AddressInfo).port}${(req.url ?? '/').replace(/&page=\d+/, '')}&page=${requests}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ value: [], nextLink: next }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const caFile = `${world.dir}/endless-ca.pem`;
      await writeFile(caFile, certificate.cert);
      const api = await createComputeScaleSetApi({ subscriptionId: SUBSCRIPTION, credential: 'dev', resourceManagerEndpoint: `https://127.0.0.1:${port}`, caFile });
      const error = await api.listVms('rg', 'endless', 'Uniform', { maxVms: 20 }).then(() => undefined, (e: unknown) => e);
      expect((error as Error).message).toMatch(/more than 21 pages/);
      // The 22nd page is refused before it is asked for.
      expect(requests).toBe(21);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
