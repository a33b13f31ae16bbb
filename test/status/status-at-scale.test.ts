/**
 * `drover status` at fleet size reads each pool in a fixed number of requests whatever its VMs:
 * the packed cache in point reads (meta row, pack rows), the inventory in pages of up to 1,000
 * rows, each page with a deadline of its own, and only a few objects at once. Counted on the
 * wire by a policy on the runtime's table pipelines.
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzureNamedKeyCredential, TableClient } from '@azure/data-tables';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { runPass } from '../../src/reconcile/pass.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { tableClientOptions, type TableName } from '../../src/state/storage.js';
import { TimeoutError } from '../../src/deadline.js';
import { buildStatus, STATUS_CONCURRENCY } from '../../src/status/status.js';
import { poolStatus } from '../../src/status/pool-status.js';
import { listPartitionPaged } from '../../src/status/paged-list.js';
import { readCacheView } from '../../src/status/cache-read.js';
import { AZURITE_ACCOUNT, AZURITE_KEY } from '../../sim/azurite.js';
import { armWorldPerFile } from '../support/arm.js';
import { silentProxy, type SilentProxy } from '../support/silent-proxy.js';

const POOLS = 20;
const VMS = 250;
const TABLES: TableName[] = ['instances', 'machines', 'targets', 'probes', 'decisions'];

/** Requests by "METHOD table" and the most in flight at once, from now on. */
function countRequests(rt: Runtime) {
  const counts = new Map<string, number>();
  let inFlight = 0;
  let peak = 0;
  for (const name of TABLES) {
    rt.table(name).client.pipeline.addPolicy({
      name: 'countStatusRequests',
      sendRequest: async (request, next) => {
        const key = `${request.method} ${name}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        peak = Math.max(peak, ++inFlight);
        try {
          return await next(request);
        } finally {
          inFlight--;
        }
      },
    });
  }
  return {
    take() {
      const taken = { counts: Object.fromEntries(counts), peak };
      counts.clear();
      peak = 0;
      return taken;
    },
  };
}

describe('drover status at fleet size', () => {
  const world = armWorldPerFile({ pageSize: 1000 });
  let rt: Runtime;
  let counter: ReturnType<typeof countRequests>;
  beforeAll(async () => {
    for (let n = 0; n < POOLS; n++) world.sim.addScaleSet({ resourceGroup: 'rg-status', name: `vmss${n}`, capacity: VMS });
    const pools = Array.from({ length: POOLS }, (_, n) => ({ name: `pool${n}`, scaleSet: { resourceGroup: 'rg-status', name: `vmss${n}` }, maxCount: VMS }));
    rt = await world.runtime({ pools }, { clock: new ManualClock(Date.now()) });
    const report = await runPass(rt, { log: silentLog, budgetMs: Infinity, concurrency: 4 });
    expect(report.errors).toBe(0);
    counter = countRequests(rt);
  }, 120_000);

  it('reads each pool in three requests, none per VM, a few objects at a time', async () => {
    counter.take();
    const status = await buildStatus(rt, { decisions: 0 });
    const { counts, peak } = counter.take();
    expect(status.pools.map((p) => [p.instances.length, p.machines.length, p.counts.healthy])).toEqual(Array.from({ length: POOLS }, () => [VMS, VMS, VMS]));
    // Per pool: the cache's meta row and its one pack row (250 VMs), one page of the inventory
    // (its bookkeeping rows and the machines packed).
    expect(counts).toEqual({ 'GET instances': 2 * POOLS, 'GET machines': POOLS });
    // At most three requests of a pool in flight (the cache's meta and first pack rows, the inventory).
    expect(peak).toBeLessThanOrEqual(3 * STATUS_CONCURRENCY);
    expect(peak).toBeGreaterThan(2);
  });

  it('reads a partition in as many pages as it takes', async () => {
    const partition = await rt.table('machines').list(rt.config.pools[0]!.name);
    counter.take();
    const status = await poolStatus(rt, rt.config.pools[0]!, { pageSize: 1 });
    expect(status.machines).toHaveLength(VMS);
    // The pool's bookkeeping rows and its machines' pack rows, a page each.
    expect(partition.length).toBeGreaterThan(1);
    expect(counter.take().counts).toEqual({ 'GET instances': 2, 'GET machines': partition.length });
  });
});

const PAGES_TABLE = `statuspages${randomBytes(4).toString('hex')}`;

describe('a page of a partition that gets no answer', () => {
  let proxy: SilentProxy;
  const connection = inject('azuriteConnection');
  const tableUrl = /TableEndpoint=([^;]+)/.exec(connection)![1]!;
  const client = (url: string) =>
    new TableClient(url, PAGES_TABLE, new AzureNamedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY), { allowInsecureConnection: true, ...tableClientOptions() });
  beforeAll(async () => {
    // Answers the first page, holds every later one (their queries carry a continuation).
    proxy = await silentProxy(tableUrl.replace(/\/devstoreaccount1\/?$/, ''), (req) => /NextRowKey=/i.test(req.url ?? ''), {
      // Azurite's table traffic: recorded under its own name, outside the API check.
      service: 'azurite',
    });
    const direct = client(tableUrl);
    await direct.createTable();
    const rows = Array.from({ length: 150 }, (_, i) => ['create', { partitionKey: 'p', rowKey: `r${String(i).padStart(3, '0')}` }] as const);
    for (let i = 0; i < rows.length; i += 100) await direct.submitTransaction(rows.slice(i, i + 100).map(([k, e]) => [k, e]));
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('fails with a timeout naming that page, after that page\'s deadline only', async () => {
    const table = new EntityTable(client(`${proxy.url}/${AZURITE_ACCOUNT}`));
    const started = Date.now();
    const err = await listPartitionPaged(table, 'p', { pageSize: 100, pageTimeoutMs: 400 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).message).toMatch(/list p, page 2 timed out/);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(proxy.held()).toBe(1);
    // Without the hold, the same read is the whole partition.
    expect(await listPartitionPaged(new EntityTable(client(tableUrl)), 'p', { pageSize: 100 })).toHaveLength(150);
  });
});

describe('a cache partition of the old one-row-per-VM format', () => {
  it('is read as it is until its next listing packs it', async () => {
    const connection = inject('azuriteConnection');
    const client = TableClient.fromConnectionString(connection, `statusold${randomBytes(4).toString('hex')}`, { allowInsecureConnection: true });
    await client.createTable();
    const table = new EntityTable(client);
    await table.create('rg/old', '~meta', { periodMs: 300_000, jitterSec: 0, lastRefresh: 1 });
    for (const n of [0, 1, 2]) await table.create('rg/old', `azure://vm-${n}`, { name: `vm_${n}`, state: n === 2 ? '' : 'Running', powerState: 'PowerState/running' });
    const view = await readCacheView(table, 'rg/old', { pageSize: 2 });
    expect(view.meta?.lastRefresh).toBe(1);
    expect(view.instances.map((i) => [i.id, i.state])).toEqual([['azure://vm-0', 'Running'], ['azure://vm-1', 'Running'], ['azure://vm-2', null]]);
    expect(await readCacheView(table, 'rg/none')).toEqual({ meta: undefined, instances: [] });
  });
});
